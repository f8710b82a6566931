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

// Commands the simulator does not play are asked about, then not run.
func TestBuiltinBashRunsOnlyWhatItPlays(t *testing.T) {
	dir, _ := workdir(t)
	commands := []string{
		"touch planted.txt",
		"echo hi > planted.txt",
		"ls | wc -l",
		"echo $HOME",
		"ls; touch planted.txt",
		"cat *.txt",
		"git push origin main",
		"git -c core.pager=touch status",
		"git diff -- ../",
		"rm -rf sub",
		"curl https://example.com",
		"ls -R",
		"cat",
	}
	var calls []sim.ToolCall
	for _, cmd := range commands {
		calls = append(calls, sim.BashCall(cmd, "Try"))
	}
	evs, turn := runBuiltins(t, fixedCalls(calls...), approveOnce, map[string]any{"requestPermission": true, "workingDirectory": dir})
	if len(turn.ToolResults) != len(calls) || count(evs, protocol.EventPermissionRequested) != len(calls) {
		t.Fatalf("results %+v", turn.ToolResults)
	}
	for i, r := range turn.ToolResults {
		if r.OK() || r.Error != "Command not run by the simulator" || !strings.Contains(r.Text, "`"+commands[i]+"`") {
			t.Errorf("%q: %+v", commands[i], r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "planted.txt")); err == nil {
		t.Error("a command the simulator does not play ran")
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "a.go")); err != nil {
		t.Error("rm ran")
	}
	// What the CLI reports of a command at its start.
	var info []string
	for _, e := range evs {
		if e.Type == protocol.EventToolExecutionStart {
			var d protocol.ToolExecutionStartData
			mustUnmarshal(t, e.Data, &d)
			b, _ := json.Marshal(d.ShellToolInfo)
			info = append(info, string(b))
		}
	}
	if info[1] != `{"possiblePaths":["planted.txt"],"hasWriteFileRedirection":true}` || info[0] != `{"possiblePaths":["planted.txt"],"hasWriteFileRedirection":false}` {
		t.Errorf("shellToolInfo %v", info[:2])
	}
}

// The commands the simulator plays, with their output as the real ones
// print it.
func TestBuiltinBashPlays(t *testing.T) {
	dir, _ := workdir(t)
	for _, tc := range []struct{ cmd, want string }{
		{"pwd", dir + "\n<shellId: 0 completed with exit code 0>"},
		{"echo hello   \"big world\"", "hello big world\n<shellId: 0 completed with exit code 0>"},
		{"ls -a sub", ".\n..\na.go\n<shellId: 0 completed with exit code 0>"},
		{"ls -A", ".hidden\ndup.txt\nescape\nnotes.txt\nsub\n<shellId: 0 completed with exit code 0>"},
		{"ls nope", "ls: cannot access 'nope': No such file or directory\n<shellId: 0 completed with exit code 2>"},
		{"cat nope.txt", "cat: nope.txt: No such file or directory\n<shellId: 0 completed with exit code 1>"},
		{"cat sub/a.go dup.txt", "package a\nx = 1\nx = 1\n<shellId: 0 completed with exit code 0>"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			_, turn := runBuiltins(t, fixedCalls(sim.BashCall(tc.cmd, "")), approveOnce, map[string]any{"requestPermission": true, "workingDirectory": dir})
			if r := turn.ToolResults[0]; !r.OK() || r.Text != tc.want {
				t.Errorf("%+v, want %q", r, tc.want)
			}
		})
	}
}

// git status, diff and log run in the folder, whatever GIT_DIR says.
func TestBuiltinBashPlaysGit(t *testing.T) {
	dir, _ := workdir(t)
	if !gitInit(t, dir) {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_DIR", t.TempDir()) // must not be followed
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, turn := runBuiltins(t, fixedCalls(sim.BashCall("git status --short", ""), sim.BashCall("git diff --stat", ""), sim.BashCall("git log --oneline -n 5", "")),
		approveOnce, map[string]any{"requestPermission": true, "workingDirectory": dir})
	for i, want := range []string{" M notes.txt\n", "notes.txt | 4 +---", "first\n"} {
		if r := turn.ToolResults[i]; !r.OK() || !strings.Contains(r.Text, want) || !strings.Contains(r.Text, "exit code 0>") {
			t.Errorf("%s: %+v, want %q", r.Arguments, r, want)
		}
	}
}

// The failures CLI 1.0.102 reports before asking (create of an existing
// file or in a missing folder, an edit that cannot be made) and after (a
// view of a missing path), each in its words.
func TestBuiltinToolFailures(t *testing.T) {
	dir, _ := workdir(t)
	notes, dup := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "dup.txt")
	missing := filepath.Join(dir, "nope.txt")
	calls := []sim.ToolCall{
		sim.CreateCall(notes, "x"),
		sim.CreateCall(filepath.Join(dir, "newdir", "f.txt"), "x"),
		sim.EditCall(notes, "zzz", "y"),
		sim.EditCall(dup, "x = 1", "x = 2"),
		sim.EditCall(missing, "<a>", "b"),
		sim.ViewCall(missing),
	}
	evs, turn := runBuiltins(t, fixedCalls(calls...), approveOnce, map[string]any{"requestPermission": true, "workingDirectory": dir})
	want := []struct{ err, text string }{
		{"Path already exists", "Path " + notes + " already exists as a file. Use `view` to check contents then edit it."},
		{"Parent directory does not exist", "Parent directory " + filepath.Join(dir, "newdir") + " does not exist. You need to create it before creating the file."},
		{"No match found", "No match found: old_str not found in " + notes + "; no changes made; you might want to try again with correct old_str"},
		{"Multiple matches found", "Ambiguous match for old_str in " + dup + ": pattern starting with \"x = 1\" matched at lines 1, 2. No changes made; try again with a more specific old_str."},
		{"Unhandled error: Error: ENOENT: no such file or directory, open '" + missing + "'",
			`Failed to execute with arguments: {"path":"` + missing + `","old_str":"<a>","new_str":"b","command":"edit"} due to error: Error: ENOENT: no such file or directory, open '` + missing + `'`},
		{"Path does not exist", "Path " + missing + " does not exist. Please provide a valid path."},
	}
	for i, r := range turn.ToolResults {
		if r.Error != want[i].err || r.Text != want[i].text || r.ResultType != "failure" {
			t.Errorf("%s %s: %+v, want %+v", r.Name, r.Arguments, r, want[i])
		}
	}
	// Only the view asked.
	if reqs := permissionRequests(t, evs); len(reqs) != 1 || reqs[0].Kind != "read" {
		t.Errorf("requests %+v", reqs)
	}
	if d := completions(t, evs)[turn.ToolResults[0].CallID]; d.Error == nil || d.Error.Code != "failure" || d.Error.Message != "Path already exists" {
		t.Errorf("completion %+v", d)
	}
}

// Without requestPermission every built-in tool is denied, as on the real
// CLI; without a working directory the file tools and bash fail; a session
// whose availableTools leave them out does not have them.
func TestBuiltinToolsUnavailable(t *testing.T) {
	dir, _ := workdir(t)
	notes := filepath.Join(dir, "notes.txt")
	all := []sim.ToolCall{sim.ViewCall(notes), sim.CreateCall(filepath.Join(dir, "n.txt"), "x"), sim.BashCall("ls", "List"), sim.WebFetchCall("https://example.com/")}
	t.Run("no requestPermission", func(t *testing.T) {
		evs, turn := runBuiltins(t, fixedCalls(all...), approveOnce, map[string]any{"workingDirectory": dir})
		for _, r := range turn.ToolResults {
			if r.ResultType != "denied" || !strings.HasPrefix(r.Text, "Permission denied and could not request permission from user.") {
				t.Errorf("%+v", r)
			}
		}
		if count(evs, protocol.EventPermissionRequested) != 0 {
			t.Error("asked")
		}
	})
	t.Run("no working directory", func(t *testing.T) {
		var offered sim.Turn
		evs, turn := runBuiltins(t, func(turn sim.Turn) []sim.ToolCall { offered = turn; return all }, approveOnce, map[string]any{"requestPermission": true})
		for _, r := range turn.ToolResults[:3] {
			if r.Error != "No working directory" || !strings.Contains(r.Text, "without one") {
				t.Errorf("%+v", r)
			}
		}
		if r := turn.ToolResults[3]; !r.OK() {
			t.Errorf("web_fetch needs no folder: %+v", r)
		}
		if count(evs, protocol.EventPermissionRequested) != 1 || offered.WorkingDirectory != "" {
			t.Errorf("events %v", types(evs))
		}
	})
	t.Run("availableTools", func(t *testing.T) {
		var offered sim.Turn
		_, turn := runBuiltins(t, func(turn sim.Turn) []sim.ToolCall { offered = turn; return all }, approveOnce,
			map[string]any{"requestPermission": true, "workingDirectory": dir, "availableTools": []string{"view"}})
		if strings.Join(offered.Builtins, ",") != "view" || !turn.ToolResults[0].OK() {
			t.Errorf("offered %v, results %+v", offered.Builtins, turn.ToolResults)
		}
		for _, r := range turn.ToolResults[1:] {
			if r.Text != fmt.Sprintf("Tool '%s' does not exist.", r.Name) {
				t.Errorf("%+v", r)
			}
		}
		_, turn = runBuiltins(t, func(turn sim.Turn) []sim.ToolCall { offered = turn; return all[:1] }, approveOnce,
			map[string]any{"requestPermission": true, "workingDirectory": dir, "availableTools": []string{}})
		if len(offered.Builtins) != 0 || turn.ToolResults[0].OK() {
			t.Errorf("availableTools []: offered %v, results %+v", offered.Builtins, turn.ToolResults)
		}
		_, turn = runBuiltins(t, func(turn sim.Turn) []sim.ToolCall { offered = turn; return all[2:3] }, approveOnce,
			map[string]any{"requestPermission": true, "workingDirectory": dir, "excludedTools": []string{"bash"}})
		if strings.Join(offered.Builtins, ",") != "view,create,edit,web_fetch" || turn.ToolResults[0].OK() {
			t.Errorf("excludedTools: offered %v, results %+v", offered.Builtins, turn.ToolResults)
		}
	})
}

// An approval for the session covers what CLI 1.0.102 was seen to let it
// cover: {kind:"commands"} those exact commands, {kind:"write"} every
// create and edit, {kind:"read"} every view; without an approval (the
// url request has none to offer) the tool is asked again.
func TestBuiltinApprovedForSession(t *testing.T) {
	dir, _ := workdir(t)
	rounds := [][]sim.ToolCall{
		{sim.BashCall("ls", "List")},
		{sim.BashCall("ls", "List")},
		{sim.BashCall("ls -a", "List")},
		{sim.CreateCall("c.txt", "c")},
		{sim.CreateCall("d.txt", "d")},
		{sim.EditCall("c.txt", "c", "C")},
		{sim.ViewCall("c.txt")},
		{sim.ViewCall("notes.txt")},
		{sim.WebFetchCall("https://example.com/x")},
		{sim.WebFetchCall("https://example.com/y")},
	}
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		if turn.Call < len(rounds) {
			return sim.Response{ToolCalls: rounds[turn.Call]}
		}
		return sim.Text("done")
	}}
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
	a := newAnswerer(c, "", nil, "")
	a.decide = func(r protocol.PermissionRequest) map[string]any {
		approval := map[string]any{"kind": r.Kind}
		switch r.Kind {
		case "shell":
			approval = map[string]any{"kind": "commands", "commandIdentifiers": []string{r.FullCommandText}}
		case "url":
			return map[string]any{"kind": "approve-for-session"}
		}
		return map[string]any{"kind": "approve-for-session", "approval": approval}
	}
	id := c.createSession(map[string]any{"requestPermission": true, "workingDirectory": dir})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	a.check(t)
	var asked []string
	for _, r := range permissionRequests(t, evs) {
		asked = append(asked, r.Kind+" "+r.FullCommandText+r.FileName+r.Path+r.URL)
	}
	want := []string{"shell ls", "shell ls -a", "write " + filepath.Join(dir, "c.txt"), "read " + filepath.Join(dir, "c.txt"), "url https://example.com/x", "url https://example.com/y"}
	if strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("asked\n%s\nwant\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}
	if got := readFile(t, filepath.Join(dir, "c.txt")); got != "C" {
		t.Errorf("c.txt = %q", got)
	}
}

// An abort while a built-in tool waits for its permission ends the turn
// and the tool never runs.
func TestBuiltinAbortWhileAsking(t *testing.T) {
	dir, _ := workdir(t)
	fresh := filepath.Join(dir, "new.txt")
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(fixedCalls(sim.CreateCall(fresh, "x")), nil)}}))
	id := c.createSession(map[string]any{"requestPermission": true, "workingDirectory": dir})
	c.send(id, "go")
	var req struct{ RequestID string }
	mustUnmarshal(t, c.waitType(id, protocol.EventPermissionRequested).Data, &req)
	c.mustCall(protocol.MethodSessionAbort, map[string]any{"sessionId": id}, nil)
	evs := c.waitIdle(id, 1)
	if evs[len(evs)-2].Type != protocol.EventAbort || count(evs, protocol.EventToolExecutionComplete) != 0 {
		t.Errorf("events %v", types(evs))
	}
	rerr := rpcError(t, c.call(protocol.MethodSessionPermissionsHandlePendingPermissionRequest,
		map[string]any{"sessionId": id, "requestId": req.RequestID, "result": approveOnce}, nil))
	if !strings.Contains(rerr.Message, "no pending permission request") {
		t.Errorf("late answer: %+v", rerr)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("the aborted create wrote its file")
	}
}

// A client tool of a built-in tool's name is the one called.
func TestClientToolShadowsBuiltin(t *testing.T) {
	dir, _ := workdir(t)
	var offered []string
	calls := func(turn sim.Turn) []sim.ToolCall {
		offered = turn.Builtins
		return []sim.ToolCall{sim.ViewCall("notes.txt")}
	}
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(calls, nil)}}))
	newAnswerer(c, "approve-once", map[string]any{"textResultForLlm": "from the client"}, "")
	id := c.createSession(map[string]any{"requestPermission": true, "workingDirectory": dir, "tools": []any{map[string]any{"name": "view"}}})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	if got := messageContent(t, evs); got != "view success: from the client" {
		t.Errorf("reply %q", got)
	}
	if strings.Join(offered, ",") != "bash,create,edit,web_fetch" {
		t.Errorf("Turn.Builtins %v", offered)
	}
}
