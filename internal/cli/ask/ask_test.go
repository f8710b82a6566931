package ask

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/cmdutil/cmdutiltest"
	"github.com/quorum-go/quorum/quorum"
)

func factory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer) {
	f, s := cmdutiltest.Factory(t, nil)
	return f, s.Out
}

// The command's flags reach its options: the one model, the question,
// quiet, --sim; nothing connects when a run function stands
// in.
func TestNewCmdAskParsesItsFlags(t *testing.T) {
	f, out := factory(t)
	var got *AskOptions
	cmd := NewCmdAsk(f, func(o *AskOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--sim", "-q", "-m", "sim-beta", "why?"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	switch {
	case got == nil:
		t.Fatal("the run function was not called")
	case got.Opts.Model != "sim-beta" || strings.Join(got.Args, " ") != "why?" || !got.Opts.Quiet || !got.Opts.Sim:
		t.Errorf("model %q, args %q, quiet %v, sim %v", got.Opts.Model, got.Args, got.Opts.Quiet, got.Opts.Sim)
	case out.Len() != 0:
		t.Errorf("printed %q", out)
	}
}

// A second -m is a usage error: ask asks one model.
func TestNewCmdAskRefusesTwoModels(t *testing.T) {
	f, _ := factory(t)
	cmd := NewCmdAsk(f, func(*AskOptions) error { t.Error("the run function was called"); return nil })
	cmd.SetArgs([]string{"-m", "a", "-m", "b", "why?"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "quorum ask asks one model") {
		t.Errorf("err %v", err)
	}
}

// Run with an observer: the streamed answer reaches it as Delta events,
// and the JSON result holds the whole answer.
func TestRunStreamsToTheObserver(t *testing.T) {
	f, out := factory(t)
	var streamed strings.Builder
	cmd := NewCmdAsk(f, func(o *AskOptions) error {
		return Run(o, func(ev quorum.Progress) {
			if ev.Kind == quorum.Delta {
				streamed.WriteString(ev.Text)
			}
		})
	})
	cmd.SetArgs([]string{"--sim", "-q", "-m", "sim-beta", "--json", "answer", "why?"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var r struct{ Answer string }
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Answer == "" || streamed.String() != r.Answer {
		t.Errorf("streamed %q, answer %q", streamed.String(), r.Answer)
	}
}
