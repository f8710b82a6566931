package quorum

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTranscript(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTranscript(&buf)
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			tr.Record(Progress{Kind: ModelFinished, Time: at, Phase: PhaseVote, Model: "m", Target: "B", Text: "<<<x>>>",
				Elapsed: 1500 * time.Millisecond, Score: float64(i%10 + 1), Usage: &Usage{Calls: 1}, Err: errors.New("boom")})
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d lines, want 50", len(lines))
	}
	var e TranscriptEntry
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil {
		t.Fatal(err)
	}
	if !e.Time.Equal(at) || e.Kind != ModelFinished || e.Target != "B" || e.ElapsedMS != 1500 || e.Error != "boom" || e.Usage.Calls != 1 {
		t.Errorf("entry = %+v", e)
	}
	if !strings.Contains(lines[0], `"text":"<<<x>>>"`) {
		t.Errorf("delimiters were escaped: %s", lines[0])
	}
	if tr.Err() != nil {
		t.Error(tr.Err())
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

func TestTranscriptStopsAfterWriteError(t *testing.T) {
	w := &failingWriter{}
	tr := NewTranscript(w)
	tr.Record(Progress{Kind: PhaseStarted})
	tr.Record(Progress{Kind: PhaseStarted})
	if tr.Err() == nil || w.n != 1 {
		t.Errorf("err=%v writes=%d, want the error and one write", tr.Err(), w.n)
	}
}
