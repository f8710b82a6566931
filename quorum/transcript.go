package quorum

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Transcript writes a run's record as JSON lines: one TranscriptEntry per
// event, prompts (model_started) and replies (model_finished) included,
// each with its timestamp. Set it as Config.Transcript. It is safe for
// concurrent use, so one transcript may record several runs; lines are
// never interleaved.
type Transcript struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
}

// NewTranscript returns a transcript writing to w.
func NewTranscript(w io.Writer) *Transcript {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // prompts hold <<<delimiters>>>; keep them readable
	return &Transcript{enc: enc}
}

// TranscriptEntry is one line of a transcript.
type TranscriptEntry struct {
	Time      time.Time    `json:"time"`
	Kind      ProgressKind `json:"kind"`
	Phase     Phase        `json:"phase,omitempty"`
	Model     string       `json:"model,omitempty"`
	Target    string       `json:"target,omitempty"`
	Text      string       `json:"text,omitempty"`
	System    string       `json:"system,omitempty"`
	ElapsedMS int64        `json:"elapsedMs,omitempty"`
	Score     float64      `json:"score,omitempty"`
	Usage     *Usage       `json:"usage,omitempty"`
	Error     string       `json:"error,omitempty"`
}

// Record writes ev as one line. After a write error it writes nothing more;
// Err reports the error.
func (t *Transcript) Record(ev Progress) {
	e := TranscriptEntry{
		Time: ev.Time, Kind: ev.Kind, Phase: ev.Phase, Model: ev.Model, Target: ev.Target,
		Text: ev.Text, System: ev.System, ElapsedMS: ev.Elapsed.Milliseconds(), Score: ev.Score, Usage: ev.Usage,
	}
	if ev.Err != nil {
		e.Error = ev.Err.Error()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = t.enc.Encode(e)
	}
}

// Err returns the first write error, if any.
func (t *Transcript) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
