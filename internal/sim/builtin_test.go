package sim_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// The built-in tools, as CLI 1.0.102 runs them (the shapes and texts here
// were recorded from it: doc.go's "Built-in tools"), and the simulator's
// own safety rules: nothing outside the session's folder, no command it
// does not play.

// builtinModel calls what calls returns for the turn on its first model
// call, then reports each result on the next (and sends the results to
// got, when not nil).
func builtinModel(calls func(sim.Turn) []sim.ToolCall, got chan<- sim.Turn) sim.Model {
	return sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		if turn.Call == 0 {
			return sim.Response{ToolCalls: calls(turn)}
		}
		if got != nil {
			got <- turn
		}
		var lines []string
		for _, r := range turn.ToolResults {
			lines = append(lines, fmt.Sprintf("%s %s: %s", r.Name, r.ResultType, r.Text))
		}
		return sim.Text(strings.Join(lines, "\n"))
	}}
}

// fixedCalls is a calls function that always returns calls.
func fixedCalls(calls ...sim.ToolCall) func(sim.Turn) []sim.ToolCall {
	return func(sim.Turn) []sim.ToolCall { return calls }
}

// workdir makes a folder for a session, inside a parent that also holds a
// file outside it (secret.txt), and returns both.
func workdir(t *testing.T) (dir, secret string) {
	t.Helper()
	parent := t.TempDir()
	dir = filepath.Join(parent, "work")
	secret = filepath.Join(parent, "secret.txt")
	for name, text := range map[string]string{
		secret:                               "SECRET outside\n",
		filepath.Join(dir, "notes.txt"):      "line one\nline two\nline three\n",
		filepath.Join(dir, "dup.txt"):        "x = 1\nx = 1\n",
		filepath.Join(dir, "sub", "a.go"):    "package a\n",
		filepath.Join(dir, ".hidden", "h.t"): "h",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(parent, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	return dir, secret
}

// runBuiltins runs one turn of a session created with params (plus the
// model), answering every permission request with decision, and returns
// the turn's events and what the model got back.
func runBuiltins(t *testing.T, calls func(sim.Turn) []sim.ToolCall, decision map[string]any, params map[string]any) ([]sim.Event, sim.Turn) {
	t.Helper()
	got := make(chan sim.Turn, 1)
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(calls, got)}}))
	a := newAnswerer(c, "", nil, "")
	a.decision = decision
	id := c.createSession(params)
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	a.check(t)
	select {
	case turn := <-got:
		return evs, turn
	default:
		return evs, sim.Turn{}
	}
}

var approveOnce = map[string]any{"kind": "approve-once"}

// permissionRequests decodes the turn's permission.requested events.
func permissionRequests(t *testing.T, evs []sim.Event) []protocol.PermissionRequest {
	t.Helper()
	var out []protocol.PermissionRequest
	for _, e := range evs {
		if e.Type == protocol.EventPermissionRequested {
			var d struct {
				PermissionRequest protocol.PermissionRequest `json:"permissionRequest"`
				PromptRequest     json.RawMessage            `json:"promptRequest"`
			}
			mustUnmarshal(t, e.Data, &d)
			if len(d.PromptRequest) == 0 {
				t.Errorf("permission.requested without promptRequest: %s", e.Data)
			}
			out = append(out, d.PermissionRequest)
		}
	}
	return out
}

// completions decodes the turn's tool.execution_complete events by call.
func completions(t *testing.T, evs []sim.Event) map[string]protocol.ToolExecutionCompleteData {
	t.Helper()
	out := map[string]protocol.ToolExecutionCompleteData{}
	for _, e := range evs {
		if e.Type == protocol.EventToolExecutionComplete {
			var d protocol.ToolExecutionCompleteData
			mustUnmarshal(t, e.Data, &d)
			out[d.ToolCallID] = d
		}
	}
	return out
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gitInit makes dir a repository with one commit, if git is installed.
func gitInit(t *testing.T, dir string) bool {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return false
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "notes.txt"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return true
}

// Every tool approved, all called in one reply: each runs in turn with a
// permission request of its kind and the CLI's fields, and the model gets
// the CLI's result texts.
func TestBuiltinToolsApproved(t *testing.T) {
	dir, _ := workdir(t)
	git := gitInit(t, dir)
	notes, fresh := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "new.txt")
	calls := []sim.ToolCall{
		sim.ViewCall(notes),
		sim.Call(sim.ToolView, map[string]any{"path": "notes.txt", "view_range": []int{2, 3}}),
		sim.ViewCall(filepath.Join(dir, "sub")),
		sim.CreateCall(fresh, "hello\nworld\n"),
		sim.EditCall(notes, "line two", "line 2"),
		sim.BashCall("ls", "List files"),
		sim.BashCall("cat 'notes.txt'", ""),
		sim.WebFetchCall("https://example.com/page"),
	}
	if git {
		calls = append(calls, sim.BashCall("git log --oneline -1", "Last commit"))
	}
	var offered sim.Turn
	evs, turn := runBuiltins(t, func(turn sim.Turn) []sim.ToolCall { offered = turn; return calls }, approveOnce,
		map[string]any{"requestPermission": true, "workingDirectory": dir})

	if got := strings.Join(offered.Builtins, ","); got != "bash,view,create,edit,web_fetch" || offered.WorkingDirectory != dir {
		t.Errorf("the script was offered %q in %q", got, offered.WorkingDirectory)
	}
	want := []string{
		"line one\nline two\nline three\n",
		"line two\nline three",
		"a.go",
		"Created file " + fresh + " with 12 characters",
		"File " + notes + " updated with changes.",
		"dup.txt\nescape\nnew.txt\nnotes.txt\nsub\n<shellId: 0 completed with exit code 0>",
		"line one\nline 2\nline three\n<shellId: 1 completed with exit code 0>",
		"Contents of https://example.com/page:\n",
		"first\n<shellId: 2 completed with exit code 0>",
	}
	if len(turn.ToolResults) != len(calls) {
		t.Fatalf("%d results for %d calls: %+v", len(turn.ToolResults), len(calls), turn.ToolResults)
	}
	for i, r := range turn.ToolResults {
		if !r.OK() || !strings.Contains(r.Text, want[i]) {
			t.Errorf("%s result %q (error %q), want %q", r.Name, r.Text, r.Error, want[i])
		}
	}
	if got := readFile(t, fresh); got != "hello\nworld\n" {
		t.Errorf("created %q", got)
	}
	if got := readFile(t, notes); got != "line one\nline 2\nline three\n" {
		t.Errorf("edited %q", got)
	}

	reqs := permissionRequests(t, evs)
	if len(reqs) != len(calls) {
		t.Fatalf("%d permission requests for %d calls", len(reqs), len(calls))
	}
	kinds := []string{"read", "read", "read", "write", "write", "shell", "shell", "url", "shell"}
	for i, r := range reqs {
		if r.Kind != kinds[i] || r.ToolCallID != turn.ToolResults[i].CallID || r.Intention == "" {
			t.Errorf("request %d: %+v, want kind %s for %s", i, r, kinds[i], turn.ToolResults[i].CallID)
		}
	}
	if r := reqs[0]; r.Path != notes || r.Intention != "Read file: "+notes {
		t.Errorf("read request %+v", r)
	}
	if r := reqs[2]; r.Intention != "List directory: "+filepath.Join(dir, "sub") {
		t.Errorf("read request of a folder %+v", r)
	}
	if r := reqs[3]; r.FileName != fresh || r.Intention != "Create file" || r.NewFileContents != "hello\nworld\n" ||
		!strings.Contains(r.Diff, "@@ -1,0 +1,2 @@\n+hello\n+world\n") || len(r.FileEdits) != 1 || r.FileEdits[0].Before != nil {
		t.Errorf("create request %+v", r)
	}
	if r := reqs[4]; r.FileName != notes || r.Intention != "Edit file" || r.Diff != "\ndiff --git a"+notes+" b"+notes+"\nindex 0000000..0000000 100644\n--- a"+notes+"\n+++ b"+notes+
		"\n@@ -1,4 +1,4 @@\n line one\n-line two\n+line 2\n line three\n \n" || len(r.FileEdits) != 1 || r.FileEdits[0].Before.Content != "line one\nline two\nline three\n" {
		t.Errorf("edit request %+v", r)
	}
	if r := reqs[5]; r.FullCommandText != "ls" || r.Intention != "List files" || len(r.Commands) != 1 || r.Commands[0].Identifier != "ls" ||
		len(r.CommandSegments) != 1 || r.CommandSegments[0].Identifier != "ls" {
		t.Errorf("shell request %+v", r)
	}
	if r := reqs[6]; r.Intention != "Running command" {
		t.Errorf("a shell request without description: %+v", r)
	}
	if r := reqs[7]; r.URL != "https://example.com/page" || r.Intention != "Fetch content from this URL." {
		t.Errorf("url request %+v", r)
	}
	// The fields CLI 1.0.102 sends even when empty or false.
	for _, e := range evs {
		if e.Type == protocol.EventPermissionRequested && strings.Contains(string(e.Data), `"kind":"shell"`) {
			for _, field := range []string{`"possiblePaths":[]`, `"possibleUrls":[]`, `"hasWriteFileRedirection":false`, `"canOfferSessionApproval":false`} {
				if !strings.Contains(string(e.Data), field) {
					t.Errorf("shell request without %s: %s", field, e.Data)
				}
			}
		}
	}

	done := completions(t, evs)
	if d := done[turn.ToolResults[3].CallID]; len(d.FileEdits) != 1 || d.FileEdits[0].Kind != protocol.ToolExecutionCompleteFileEditKindCreate {
		t.Errorf("create's completion %+v", d)
	}
	if d := done[turn.ToolResults[4].CallID]; len(d.FileEdits) != 1 || d.FileEdits[0].Kind != protocol.ToolExecutionCompleteFileEditKindEdit {
		t.Errorf("edit's completion %+v", d)
	}
	if d := done[turn.ToolResults[5].CallID]; d.ShellExecution == nil || d.ShellExecution.ExitCode != 0 || len(d.Result.Contents) != 1 ||
		d.Result.Contents[0].Type != "shell_exit" || d.Result.Contents[0].Cwd != dir {
		t.Errorf("bash's completion %+v", d)
	}
	// Each call in order: start, its permission, its completion; bash's
	// output also streams.
	var order []string
	for _, e := range evs {
		switch e.Type {
		case protocol.EventToolExecutionStart, protocol.EventPermissionRequested, protocol.EventPermissionCompleted, protocol.EventToolExecutionComplete:
			order = append(order, e.Type)
		}
	}
	for i := range calls {
		got := strings.Join(order[4*i:4*i+4], " ")
		if got != "tool.execution_start permission.requested permission.completed tool.execution_complete" {
			t.Errorf("call %d: %s", i, got)
		}
	}
	if n := count(evs, protocol.EventToolShellOutput); n < 2 {
		t.Errorf("%d tool.shell_output events", n)
	}
	var start protocol.ToolExecutionStartData
	for _, e := range evs {
		if e.Type == protocol.EventToolExecutionStart && strings.Contains(string(e.Data), `"bash"`) {
			mustUnmarshal(t, e.Data, &start)
			break
		}
	}
	if start.ToolTitle != "Running command" || start.ShellToolInfo == nil {
		t.Errorf("bash's tool.execution_start %+v", start)
	}
}

// A rejection with feedback fails each tool with the CLI's words and the
// model goes on; nothing is written.
func TestBuiltinToolsRejectedWithFeedback(t *testing.T) {
	dir, _ := workdir(t)
	notes, fresh := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "new.txt")
	calls := []sim.ToolCall{sim.ViewCall(notes), sim.CreateCall(fresh, "x"), sim.EditCall(notes, "line two", "2"), sim.BashCall("ls", "List"), sim.WebFetchCall("http://example.com/")}
	_, turn := runBuiltins(t, fixedCalls(calls...), map[string]any{"kind": "reject", "feedback": "not that"},
		map[string]any{"requestPermission": true, "workingDirectory": dir})
	if len(turn.ToolResults) != len(calls) {
		t.Fatalf("results %+v", turn.ToolResults)
	}
	for _, r := range turn.ToolResults {
		if r.ResultType != "denied" || r.Text != "The user rejected this tool call. User feedback: not that" {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("a rejected create wrote its file")
	}
	if got := readFile(t, notes); got != "line one\nline two\nline three\n" {
		t.Errorf("a rejected edit changed the file: %q", got)
	}
}

// A plain rejection ends the turn like an abort, as for client tools.
func TestBuiltinToolRejectedEndsTheTurn(t *testing.T) {
	dir, _ := workdir(t)
	fresh := filepath.Join(dir, "new.txt")
	evs, turn := runBuiltins(t, fixedCalls(sim.CreateCall(fresh, "x"), sim.BashCall("ls", "List")), map[string]any{"kind": "reject"},
		map[string]any{"requestPermission": true, "workingDirectory": dir})
	if turn.Call != 0 || count(evs, protocol.EventAbort) != 1 || count(evs, protocol.EventPermissionRequested) != 1 {
		t.Errorf("events %v", types(evs))
	}
	if d := completions(t, evs); len(d) != 1 {
		t.Errorf("completions %+v", d)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("a rejected create wrote its file")
	}
}

// Paths outside the folder — by "..", absolutely, or through a symlink —
// are asked about as the CLI would, and refused once approved: nothing
// outside is read or written.
func TestBuiltinPathEscapeIsRefused(t *testing.T) {
	dir, secret := workdir(t)
	parent := filepath.Dir(dir)
	viaLink := filepath.Join(dir, "escape", "secret.txt")
	calls := []sim.ToolCall{
		sim.ViewCall(secret),
		sim.ViewCall("../secret.txt"),
		sim.ViewCall(viaLink),
		sim.ViewCall(filepath.Join(dir, "escape")),
		sim.EditCall(viaLink, "SECRET", "changed"),
		sim.CreateCall(filepath.Join(dir, "escape", "planted.txt"), "x"),
		sim.CreateCall(filepath.Join(parent, "planted2.txt"), "x"),
		sim.BashCall("cat escape/secret.txt", "Read"),
		sim.BashCall("ls ..", "List"),
	}
	evs, turn := runBuiltins(t, fixedCalls(calls...), approveOnce, map[string]any{"requestPermission": true, "workingDirectory": dir})
	if len(turn.ToolResults) != len(calls) || count(evs, protocol.EventPermissionRequested) != len(calls) {
		t.Fatalf("results %+v; events %v", turn.ToolResults, types(evs))
	}
	for _, r := range turn.ToolResults {
		if r.OK() || r.Error != "Path is outside the working directory" || !strings.Contains(r.Text, "outside the session's working directory") {
			t.Errorf("%s %s: %+v", r.Name, r.Arguments, r)
		}
		if strings.Contains(r.Text, "SECRET") {
			t.Errorf("the outside file reached the model: %q", r.Text)
		}
	}
	if got := readFile(t, secret); got != "SECRET outside\n" {
		t.Errorf("the outside file changed: %q", got)
	}
	for _, name := range []string{filepath.Join(parent, "planted.txt"), filepath.Join(parent, "planted2.txt")} {
		if _, err := os.Stat(name); err == nil {
			t.Errorf("%s was written", name)
		}
	}
	// The requests name the paths as the model gave them, made absolute.
	reqs := permissionRequests(t, evs)
	if reqs[1].Path != secret || reqs[2].Path != viaLink || reqs[4].Diff == "" || strings.Contains(reqs[4].Diff, "outside\n") {
		t.Errorf("requests %+v", reqs[:5])
	}
}

// A symlink inside the folder that leads inside it is followed.
func TestBuiltinSymlinkInsideIsFollowed(t *testing.T) {
	dir, _ := workdir(t)
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	_, turn := runBuiltins(t, fixedCalls(sim.ViewCall("link/a.go"), sim.CreateCall(filepath.Join(dir, "link", "b.go"), "package a\n")), approveOnce,
		map[string]any{"requestPermission": true, "workingDirectory": dir})
	if len(turn.ToolResults) != 2 || turn.ToolResults[0].Text != "package a\n" || !turn.ToolResults[1].OK() {
		t.Fatalf("results %+v", turn.ToolResults)
	}
	if got := readFile(t, filepath.Join(dir, "sub", "b.go")); got != "package a\n" {
		t.Errorf("created %q", got)
	}
}
