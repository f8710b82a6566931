package sim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// The bash tool as the simulator plays it, and the failures the CLI
// reports before it asks.

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
