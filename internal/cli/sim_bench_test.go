package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/input"
)

// BenchmarkSimTopicLength runs quorum discuss --sim at the demo's pace
// on a normal topic and on a one-word topic of 1 MiB (the most a topic
// may be), and reports each one's time and their ratio: the simulator's
// time must not grow with a word's length (it was 2 s against 13 s for a
// 1,000-character word, and a time-out for 1 MiB). Run with
//
//	go test -run X -bench SimTopicLength -benchtime 3x ./internal/cli
func BenchmarkSimTopicLength(b *testing.B) {
	long := strings.Repeat("a", input.MaxTopic)
	run := func(topic string) time.Duration {
		var out, errb strings.Builder
		e := &env{&cmdutil.Factory{
			In: strings.NewReader(topic), Out: &out, ErrOut: &errb,
			Getenv:    func(string) string { return "" },
			ConfigDir: func() (string, error) { return b.TempDir(), nil },
			SimModels: paced(defaultSimPace, nil),
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		if err := e.run(ctx, []string{"discuss", "--sim", "-q", "-"}, nil); err != nil {
			b.Fatalf("%v\n%s", err, errb.String())
		}
		return time.Since(start)
	}
	var normal, oneWord time.Duration
	for b.Loop() {
		normal += run(goldenTopic)
		oneWord += run(long)
	}
	b.ReportMetric(normal.Seconds()/float64(b.N), "s-normal/op")
	b.ReportMetric(oneWord.Seconds()/float64(b.N), "s-1MiB-word/op")
	b.ReportMetric(oneWord.Seconds()/normal.Seconds(), "ratio")
}
