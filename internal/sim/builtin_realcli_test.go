package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
)

// The built-in tools side by side: the same calls, made by a scripted
// model through the real CLI (offline, against a local model API) and
// through the simulator, read by the same client, must give the same
// permission requests, the same completions and the same texts for the
// model — so a CLI upgrade that changes a shape fails here, naming it.
//
// Left out, because the simulator differs on purpose: paths outside the
// folder and commands it does not play (refused), web_fetch (the offline
// CLI cannot fetch; the simulator answers a fixed page), and what the CLI
// sends beyond its schemas (shellType, commandSegments' null fields,
// promptRequest's _permissionRequestSessionId), view's detailedContent
// and the order of a reply's calls (the CLI runs them at once).

// realModel is the model the local model API serves the CLI.
const realModel = "claude-sonnet-4.5"

// stdioPipe joins a child's stdout and stdin; closing it closes stdin,
// which makes the CLI exit.
type stdioPipe struct {
	io.ReadCloser
	in io.WriteCloser
}

func (p stdioPipe) Write(b []byte) (int, error) { return p.in.Write(b) }
func (p stdioPipe) Close() error {
	err := p.in.Close()
	if rerr := p.ReadCloser.Close(); err == nil {
		err = rerr
	}
	return err
}

// startRealCLI starts the pinned CLI offline over stdio, its model API
// answering with respond, and returns a client of it and the model API.
func startRealCLI(t *testing.T, respond modelapi.Responder) (*client, *modelapi.Server) {
	t.Helper()
	bin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("this test needs the real Copilot CLI: %v", err)
	}
	sb := clitest.NewSandbox(t)
	api := sb.StartModelAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{realModel: respond}})
	cmd := sb.Command(context.Background(), bin, clitest.ServerArgs("--disable-builtin-mcps")...)
	cmd.Env = clitest.OfflineEnv(t, api.URL())
	cmd.Dir = t.TempDir() // no instruction files of this repository
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs after the client's close has closed
	// stdin: the CLI then exits by itself.
	t.Cleanup(func() {
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("CLI stderr:\n%s", stderr.String())
		}
	})
	c := newClient(t, stdioPipe{stdout, stdin})
	c.mustCall("connect", map[string]any{}, nil)
	return c, api
}

// toolShape is what one built-in tool call looked like on the wire,
// normalized: the folder's path is $DIR and shell ids are N.
type toolShape struct {
	Start      string // toolTitle and shellToolInfo
	Permission string // permissionRequest
	Prompt     string // promptRequest
	Completed  string // success, error, result content(s), fileEdits, shellExecution
	Model      string // the text the model read
}

// realOnly are the fields CLI 1.0.102 sends beyond its schemas, which the
// simulator (checked against them) leaves out.
var realOnly = regexp.MustCompile(`"(shellType|_permissionRequestSessionId|allowMatchIdentifier|hasUnboundExecutableContent|staticTokens|workingDirectory)":[^,}]*,?`)

var shellID = regexp.MustCompile(`(shellId(": "|":"|: ))\d+`)

// normalize rewrites raw JSON (or text) for comparison.
func normalize(raw, dir string) string {
	s := strings.ReplaceAll(raw, dir, "$DIR")
	s = realOnly.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, ",}", "}")
	s = shellID.ReplaceAllString(s, "${1}N")
	// Compact, keys sorted: both sides through a map.
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		b, _ := json.Marshal(v)
		return string(b)
	}
	return s
}

// toolShapes reads the shapes of a turn's tool calls from its events, and
// the model's texts from text (by call id).
func toolShapes(t *testing.T, evs []sim.Event, dir string, text map[string]string) map[string]toolShape {
	t.Helper()
	out := map[string]toolShape{}
	for _, e := range evs {
		switch e.Type {
		case protocol.EventToolExecutionStart, protocol.EventPermissionRequested, protocol.EventToolExecutionComplete:
		default:
			continue
		}
		var d struct {
			ToolCallID        string          `json:"toolCallId"`
			ToolTitle         string          `json:"toolTitle"`
			ShellToolInfo     json.RawMessage `json:"shellToolInfo"`
			PermissionRequest json.RawMessage `json:"permissionRequest"`
			PromptRequest     json.RawMessage `json:"promptRequest"`
			Success           bool            `json:"success"`
			Error             json.RawMessage `json:"error"`
			Result            *struct {
				Content  string          `json:"content"`
				Contents json.RawMessage `json:"contents"`
			} `json:"result"`
			FileEdits      json.RawMessage `json:"fileEdits"`
			ShellExecution json.RawMessage `json:"shellExecution"`
		}
		mustUnmarshal(t, e.Data, &d)
		id := d.ToolCallID
		if id == "" {
			var p struct {
				PermissionRequest struct {
					ToolCallID string `json:"toolCallId"`
				} `json:"permissionRequest"`
			}
			mustUnmarshal(t, e.Data, &p)
			id = p.PermissionRequest.ToolCallID
		}
		sh := out[id]
		switch e.Type {
		case protocol.EventToolExecutionStart:
			b, _ := json.Marshal(map[string]any{"toolTitle": d.ToolTitle, "shellToolInfo": d.ShellToolInfo})
			sh.Start = normalize(string(b), dir)
		case protocol.EventPermissionRequested:
			sh.Permission, sh.Prompt = normalize(string(d.PermissionRequest), dir), normalize(string(d.PromptRequest), dir)
		case protocol.EventToolExecutionComplete:
			b, _ := json.Marshal(d) // toolCallId, title etc. are dropped below
			var m map[string]json.RawMessage
			json.Unmarshal(b, &m)
			for _, k := range []string{"toolCallId", "toolTitle", "shellToolInfo", "permissionRequest", "promptRequest"} {
				delete(m, k)
			}
			b, _ = json.Marshal(m)
			sh.Completed = normalize(string(b), dir)
			sh.Model = normalize(text[id], dir)
		}
		out[id] = sh
	}
	return out
}

// sideBySideCalls are the calls both run: each tool, approved, with the
// failures the simulator words as the CLI does. None depends on another,
// as the CLI runs them at once.
func sideBySideCalls(dir string) []sim.ToolCall {
	calls := []sim.ToolCall{
		sim.ViewCall(filepath.Join(dir, "notes.txt")),
		sim.Call(sim.ToolView, map[string]any{"path": "notes.txt", "view_range": []int{2, 3}}),
		sim.Call(sim.ToolView, map[string]any{"path": filepath.Join(dir, "notes.txt"), "view_range": []int{2, -1}}),
		sim.ViewCall(filepath.Join(dir, "sub")),
		sim.ViewCall(filepath.Join(dir, "missing.txt")),
		sim.CreateCall(filepath.Join(dir, "new.txt"), "hello\nworld\n"),
		sim.CreateCall(filepath.Join(dir, "one.txt"), "no newline, ünïcode"),
		sim.CreateCall(filepath.Join(dir, "notes.txt"), "x"),
		sim.CreateCall(filepath.Join(dir, "newdir", "f.txt"), "x"),
		sim.EditCall(filepath.Join(dir, "b.txt"), "line two", "line 2\nline 2.5"),
		sim.EditCall(filepath.Join(dir, "dup.txt"), "x = 1", "x = 2"),
		sim.EditCall(filepath.Join(dir, "c.txt"), "zzz", "y"),
		sim.EditCall(filepath.Join(dir, "nofile.txt"), "a", "b"),
		sim.BashCall("ls sub", "List the folder"),
		sim.BashCall("echo hi", ""),
		sim.BashCall("cat nope.txt", "Show"),
		sim.BashCall("pwd", "Where"),
	}
	for i := range calls {
		calls[i].ID = "call_" + string(rune('a'+i))
	}
	return calls
}

// sideBySideDir makes the folder both run in.
func sideBySideDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"notes.txt": "line one\nline two\nline three\n",
		"b.txt":     "line one\nline two\nline three\n",
		"c.txt":     "c\n",
		"dup.txt":   "x = 1\nx = 1\n",
		"sub/a.go":  "package a\n",
		"sub/.h":    "h",
	} {
		name = filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBuiltinToolsMatchTheRealCLI(t *testing.T) {
	// The real CLI.
	realDir := sideBySideDir(t)
	calls := sideBySideCalls(realDir)
	mcalls := make([]modelapi.Call, len(calls))
	for i, c := range calls {
		mcalls[i] = modelapi.Call{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)}
	}
	rc, api := startRealCLI(t, func(req modelapi.Request) modelapi.Reply {
		if req.HasToolResults {
			return modelapi.Text("done")
		}
		return modelapi.ToolCalls(mcalls...)
	})
	newAnswerer(rc, "approve-once", nil, "")
	rid := rc.createSession(map[string]any{"model": realModel, "streaming": true, "requestPermission": true, "workingDirectory": realDir})
	rc.send(rid, "go")
	revs := rc.waitIdle(rid, 1)
	// What the model read: the tool messages of the CLI's second request.
	realTexts := map[string]string{}
	for _, req := range api.Requests() {
		if req.Conversation == rid && req.HasToolResults {
			for _, m := range req.ToolResults() {
				realTexts[m.ToolCallID] = m.Content
			}
		}
	}

	// The simulator.
	simDir := sideBySideDir(t)
	got := make(chan sim.Turn, 1)
	sc, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(fixedCalls(sideBySideCalls(simDir)...), got)}}))
	newAnswerer(sc, "approve-once", nil, "")
	sid := sc.createSession(map[string]any{"model": "m", "streaming": true, "requestPermission": true, "workingDirectory": simDir})
	sc.send(sid, "go")
	sevs := sc.waitIdle(sid, 1)
	turn := <-got
	simTexts := map[string]string{}
	for _, r := range turn.ToolResults {
		simTexts[r.CallID] = r.Text
	}

	real := toolShapes(t, revs, realDir, realTexts)
	simulated := toolShapes(t, sevs, simDir, simTexts)
	if len(real) != len(calls) || len(simulated) != len(calls) {
		t.Fatalf("%d calls, %d seen on the real CLI, %d on the simulator", len(calls), len(real), len(simulated))
	}
	for _, c := range calls {
		r, s := real[c.ID], simulated[c.ID]
		if r.Model != s.Model {
			t.Errorf("%s %s: the model read\nreal %q\nsim  %q", c.Name, c.Arguments, r.Model, s.Model)
		}
		if r.Start != s.Start {
			t.Errorf("%s %s: tool.execution_start\nreal %s\nsim  %s", c.Name, c.Arguments, r.Start, s.Start)
		}
		if r.Permission != s.Permission || r.Prompt != s.Prompt {
			t.Errorf("%s %s: permission.requested\nreal %s\n     %s\nsim  %s\n     %s", c.Name, c.Arguments, r.Permission, r.Prompt, s.Permission, s.Prompt)
		}
		if r.Completed != s.Completed {
			t.Errorf("%s %s: tool.execution_complete\nreal %s\nsim  %s", c.Name, c.Arguments, r.Completed, s.Completed)
		}
	}
}
