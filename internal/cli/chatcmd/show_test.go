package chatcmd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/cmdutil/cmdutiltest"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// savedSimChat saves, under state, a chat on the simulator as quorum chat
// --sim does: a plan, an ask, a discussion on two of its three models, a
// discussion interrupted in its review phase (sim-gamma's review never
// ends), and then two models chosen for the rounds to come. It returns the
// chat's id.
func savedSimChat(t *testing.T, state string) string {
	t.Helper()
	hang := simquorum.Model("sim-gamma").With(sim.Rule{Name: "hang", Match: simquorum.Is(quorum.PhaseReview),
		Respond: sim.Always(sim.Response{Text: "[simulated sim-gamma] thinking", Hang: true})})
	models := simquorum.Models()
	for i := range models {
		if models[i].ID == hang.ID {
			models[i] = hang
		}
	}
	srv := sim.NewServer(sim.Options{Models: models})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reviewing := make(chan struct{})
	var once sync.Once
	ch, err := quorum.NewChat(quorum.Copilot(c), quorum.ChatConfig{Dir: filepath.Join(state, "quorum", "chats"), Simulated: true,
		Config: quorum.Config{Models: simquorum.Participants, Moderator: simquorum.Moderator, Progress: func(ev quorum.Progress) {
			if ev.Phase == quorum.PhaseReview && ev.Model == "sim-gamma" && ev.Kind == quorum.Delta {
				once.Do(func() { close(reviewing) })
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Plan(ctx, "Migrate our CI"); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Ask(ctx, "sim-beta", "Why?"); err != nil {
		t.Fatal(err)
	}
	if err := ch.SetModels([]string{"sim-alpha", "sim-beta"}, simquorum.Moderator); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Discuss(ctx, "Should we adopt Go?"); err != nil {
		t.Fatal(err)
	}
	if err := ch.SetModels(simquorum.Participants, simquorum.Moderator); err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	go func() {
		<-reviewing
		stop()
	}()
	if r, _ := ch.Discuss(rctx, "And read replicas?"); r.Status != quorum.RoundInterrupted || r.Discuss == nil {
		t.Fatalf("the last round: status %s, result %v; want interrupted with what came in", r.Status, r.Discuss != nil)
	}
	stop()
	if err := ch.SetModels([]string{"sim-alpha", "sim-beta"}, simquorum.Moderator); err != nil {
		t.Fatal(err)
	}
	if err := ch.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return ch.ID()
}

// quorum show of a simulated conversation marks every round simulated:
// the plan, the ask, the discussions, the interrupted one too; -o json
// prints the saved conversation in the envelope, simulated.
func TestShowMarksEveryRoundOfASimulatedChat(t *testing.T) {
	state := t.TempDir()
	id := savedSimChat(t, state)
	f, s := cmdutiltest.Factory(t, map[string]string{"XDG_STATE_HOME": state})
	cmd := NewCmdShow(f, nil)
	cmd.SetArgs([]string{id})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := s.Out.String()
	rounds := regexp.MustCompile(`(?m)^Round \d · `).FindAllStringIndex(out, -1)
	if len(rounds) != 4 {
		t.Fatalf("%d rounds shown, want 4:\n%s", len(rounds), out)
	}
	for i, at := range rounds {
		end := len(out)
		if i+1 < len(rounds) {
			end = rounds[i+1][0]
		}
		round := out[at[0]:end]
		if !strings.Contains(round, "SIMULATED RUN (--sim)") && !strings.Contains(round, "sim-beta (simulated)") {
			t.Errorf("round %d is not marked simulated:\n%s", i+1, round)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "INCOMPLETE: interrupted") {
		t.Errorf("the interrupted round is not marked incomplete:\n%s", out)
	}
	if !strings.HasPrefix(out, "Conversation "+id+", ") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "with sim-alpha, sim-beta, sim-gamma (simulated)") {
		t.Errorf("the first line does not say the conversation is simulated:\n%.200s", out)
	}

	f, s = cmdutiltest.Factory(t, map[string]string{"XDG_STATE_HOME": state})
	cmd = NewCmdShow(f, nil)
	cmd.SetArgs([]string{id, "-o", "json"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var env struct {
		cmdutil.Envelope
		Result quorum.SavedChat `json:"result"`
	}
	if err := json.Unmarshal(s.Out.Bytes(), &env); err != nil {
		t.Fatalf("%v: %.300s", err, s.Out)
	}
	if env.Command != "show" || !env.Simulated || !env.Result.Simulated || env.Result.ID != id || len(env.Result.Rounds) != 4 {
		t.Errorf("show -o json: command %q, simulated %v/%v, id %q, %d rounds", env.Command, env.Simulated, env.Result.Simulated, env.Result.ID, len(env.Result.Rounds))
	}
}

// quorum history: a header row, columns aligned whatever the models list,
// the models of every round (three, though the chat has two now and one
// round had two), the simulated mark; --jq for programs.
func TestHistoryTableAndJSON(t *testing.T) {
	state := t.TempDir()
	id := savedSimChat(t, state)
	f, s := cmdutiltest.Factory(t, map[string]string{"XDG_STATE_HOME": state})
	cmd := NewCmdHistory(f, nil)
	cmd.SetArgs(nil)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(s.Out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("history printed %d lines, want a header and a row:\n%s", len(lines), s.Out)
	}
	header, row := lines[0], lines[1]
	for _, col := range []string{"ID", "UPDATED", "ROUNDS", "MODELS", "FIRST QUESTION"} {
		i := strings.Index(header, col)
		if i < 0 {
			t.Fatalf("no %s column: %q", col, header)
		}
		if i > 0 && (row[i-1] != ' ' || row[i] == ' ') {
			t.Errorf("the %s column is not aligned with its header:\n%s\n%s", col, header, row)
		}
	}
	if !strings.HasPrefix(row, id+" ") || !strings.Contains(row, "  4  ") || !strings.Contains(row, "sim-alpha, sim-beta, sim-gamma (simulated)  Migrate our CI") {
		t.Errorf("history row: %q", row)
	}

	f, s = cmdutiltest.Factory(t, map[string]string{"XDG_STATE_HOME": state})
	cmd = NewCmdHistory(f, nil)
	cmd.SetArgs([]string{"--jq", ".result.chats[0] | [.id, .rounds, (.models | join(\",\")), .simulated, .question] | @tsv"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(s.Out.String()), id+"\t4\tsim-alpha,sim-beta,sim-gamma\ttrue\tMigrate our CI"; got != want {
		t.Errorf("history --jq: %q, want %q", got, want)
	}
}
