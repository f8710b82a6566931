package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
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
var realOnly = regexp.MustCompile(`"(shellType|_permissionRequestSessionId|allowMatchIdentifier|hasUnboundExecutableContent|staticTokens|workingDirectory|requestSandboxBypassReason)":[^,}]*,?`)

var shellID = regexp.MustCompile(`(shellId(": "|":"|: ))\d+`)

// normalize rewrites raw JSON (or text) for comparison.
func normalize(raw, dir string) string {
	s := strings.ReplaceAll(raw, dir, "$DIR")
	s = strings.ReplaceAll(s, filepath.Dir(dir), "$PARENT")
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

// sideBySideCalls are the calls both run in dir: first those compared
// whole — each tool, with the failures the simulator words as the CLI
// does — then (asked) those of which only the start and the permission
// request are compared: paths outside the folder, a command the simulator
// does not play and web_fetch, which the simulator refuses or answers
// itself. None depends on another, as the CLI runs them at once.
func sideBySideCalls(dir string) (calls []sim.ToolCall, asked int) {
	calls = []sim.ToolCall{
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
		// What the CLI refuses before asking, or after.
		sim.ViewCall(filepath.Join(dir, "big.txt")),
		sim.Call(sim.ToolView, map[string]any{"path": "big.txt", "view_range": []int{2, 3}}),
		sim.Call(sim.ToolView, map[string]any{"path": "notes.txt", "view_range": []int{5, 9}}),
		sim.Call(sim.ToolView, map[string]any{"path": "notes.txt", "view_range": []int{3, 1}}),
		sim.Call(sim.ToolView, map[string]any{"path": "notes.txt", "view_range": []int{0, 2}}),
		sim.Call(sim.ToolView, map[string]any{"path": "notes.txt", "view_range": []int{2, 10}}),
		sim.Call(sim.ToolView, map[string]any{"path": "notes.txt", "view_range": []int{2}}),
		sim.Call(sim.ToolView, map[string]any{}),
		sim.Call(sim.ToolCreate, map[string]any{"path": filepath.Join(dir, "nf.txt")}),
		sim.Call(sim.ToolCreate, map[string]any{"file_text": "x"}),
		sim.Call(sim.ToolEdit, map[string]any{"path": filepath.Join(dir, "c.txt"), "old_str": "c"}),
		sim.EditCall(filepath.Join(dir, "c.txt"), "", "y"),
		sim.Call(sim.ToolBash, map[string]any{"description": "Nothing"}),
		sim.Call(sim.ToolWebFetch, map[string]any{}),
	}
	whole := len(calls)
	calls = append(calls,
		sim.ViewCall(filepath.Join(filepath.Dir(dir), "secret.txt")),
		sim.ViewCall("../secret.txt"),
		sim.CreateCall(filepath.Join(filepath.Dir(dir), "planted.txt"), "x\n"),
		sim.BashCall("cat ../secret.txt | wc -l; ls 'a b' > out.txt", "Count"),
		sim.BashCall("git push", "Push"),
		sim.BashCall(`ls "c" 'd' e "f g" ab > "hh" >> iii`, "Quotes"),
		sim.WebFetchCall("https://example.com/page"),
	)
	for i := range calls {
		calls[i].ID = fmt.Sprintf("call_%02d", i)
	}
	return calls, whole
}

// sideBySideDir makes the folder both run in, beside a file outside it.
func sideBySideDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "work")
	for name, text := range map[string]string{
		"notes.txt":     "line one\nline two\nline three\n",
		"b.txt":         "line one\nline two\nline three\n",
		"c.txt":         "c\n",
		"dup.txt":       "x = 1\nx = 1\n",
		"sub/a.go":      "package a\n",
		"sub/.h":        "h",
		"../secret.txt": "SECRET\n",
		"big.txt":       strings.Repeat("a line of a big file\n", 1100), // 22 KB
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

// sideBySide is one side's run: the shapes of its calls by id.
type sideBySide func(t *testing.T, decision map[string]any) (map[string]toolShape, []sim.ToolCall, int)

// realSide runs the calls through the real CLI, one session a decision.
func realSide(t *testing.T) sideBySide {
	var mu sync.Mutex
	calls := map[string][]modelapi.Call{} // by session
	c, api := startRealCLI(t, func(req modelapi.Request) modelapi.Reply {
		if req.HasToolResults {
			return modelapi.Text("done")
		}
		mu.Lock()
		defer mu.Unlock()
		return modelapi.ToolCalls(calls[req.Conversation]...)
	})
	a := newAnswerer(c, "", nil, "")
	return func(t *testing.T, decision map[string]any) (map[string]toolShape, []sim.ToolCall, int) {
		dir := sideBySideDir(t)
		sc, asked := sideBySideCalls(dir)
		a.decision = decision
		id := c.createSession(map[string]any{"model": realModel, "streaming": true, "requestPermission": true, "workingDirectory": dir})
		mu.Lock()
		for _, call := range sc {
			calls[id] = append(calls[id], modelapi.Call{ID: call.ID, Name: call.Name, Arguments: string(call.Arguments)})
		}
		mu.Unlock()
		c.send(id, "go")
		evs := c.waitIdle(id, 1)
		a.check(t)
		// What the model read: the tool messages of the CLI's second
		// request.
		texts := map[string]string{}
		for _, req := range api.Requests() {
			if req.Conversation == id && req.HasToolResults {
				for _, m := range req.ToolResults() {
					texts[m.ToolCallID] = m.Content
				}
			}
		}
		return toolShapes(t, evs, dir, texts), sc, asked
	}
}

// simSide runs the calls through the simulator.
func simSide(t *testing.T) sideBySide {
	return func(t *testing.T, decision map[string]any) (map[string]toolShape, []sim.ToolCall, int) {
		dir := sideBySideDir(t)
		calls, asked := sideBySideCalls(dir)
		got := make(chan sim.Turn, 1)
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(fixedCalls(calls...), got)}}))
		a := newAnswerer(c, "", nil, "")
		a.decision = decision
		id := c.createSession(map[string]any{"model": "m", "streaming": true, "requestPermission": true, "workingDirectory": dir})
		c.send(id, "go")
		evs := c.waitIdle(id, 1)
		a.check(t)
		texts := map[string]string{}
		for _, r := range (<-got).ToolResults {
			texts[r.CallID] = r.Text
		}
		return toolShapes(t, evs, dir, texts), calls, asked
	}
}

func TestBuiltinToolsMatchTheRealCLI(t *testing.T) {
	real, simulated := realSide(t), simSide(t)
	for _, decision := range []map[string]any{
		{"kind": "approve-once"},
		{"kind": "reject", "feedback": "not that"},
	} {
		t.Run(decision["kind"].(string), func(t *testing.T) {
			rs, calls, whole := real(t, decision)
			ss, _, _ := simulated(t, decision)
			if len(rs) != len(calls) || len(ss) != len(calls) {
				t.Fatalf("%d calls, %d seen on the real CLI, %d on the simulator", len(calls), len(rs), len(ss))
			}
			for i, c := range calls {
				r, s := rs[c.ID], ss[c.ID]
				if r.Start != s.Start {
					t.Errorf("%s %s: tool.execution_start\nreal %s\nsim  %s", c.Name, c.Arguments, r.Start, s.Start)
				}
				if r.Permission != s.Permission || r.Prompt != s.Prompt {
					t.Errorf("%s %s: permission.requested\nreal %s\n     %s\nsim  %s\n     %s", c.Name, c.Arguments, r.Permission, r.Prompt, s.Permission, s.Prompt)
				}
				if i >= whole {
					continue
				}
				if r.Completed != s.Completed {
					t.Errorf("%s %s: tool.execution_complete\nreal %s\nsim  %s", c.Name, c.Arguments, r.Completed, s.Completed)
				}
				if r.Model != s.Model {
					t.Errorf("%s %s: the model read\nreal %q\nsim  %q", c.Name, c.Arguments, r.Model, s.Model)
				}
			}
		})
	}
}
