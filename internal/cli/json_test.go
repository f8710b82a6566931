package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
)

// Every command prints the same envelope with -o json, and --json picks
// fields from the result (or the envelope).
func TestOneEnvelopeForEveryCommand(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"discuss", []string{"discuss", "--sim", "-q", "-o", "json", "q"}},
		{"plan", []string{"plan", "--sim", "-q", "-o", "json", "t"}},
		{"ask", []string{"ask", "--sim", "-q", "-o", "json", "q"}},
		{"models", []string{"models", "--sim", "-o", "json"}},
		{"config", []string{"config", "-o", "json"}},
		{"config get", []string{"config", "get", "timeout", "-o", "json"}},
		{"version", []string{"version", "-o", "json"}},
	} {
		args, name := c.args, c.name
		o := h.run(args...)
		if o.code != cmdutil.ExitOK {
			t.Errorf("%q: exit %d: %s", args, o.code, o.stderr)
			continue
		}
		var env map[string]json.RawMessage
		if err := json.Unmarshal([]byte(o.stdout), &env); err != nil {
			t.Errorf("%q: %v\n%s", args, err, o.stdout)
			continue
		}
		for _, k := range []string{"command", "simulated", "status", "error", "result"} {
			if _, ok := env[k]; !ok {
				t.Errorf("%q: no %q in the envelope", args, k)
			}
		}
		if string(env["status"]) != `"ok"` || string(env["command"]) != `"`+name+`"` || string(env["error"]) != "null" {
			t.Errorf("%q: command %s (want %q), status %s", args, env["command"], name, env["status"])
		}
		if strings.Contains(o.stdout, "_ms") || strings.Contains(o.stdout, "duration") {
			t.Errorf("%q: snake_case or duration fields:\n%s", args, o.stdout)
		}
	}
}

func TestJSONFieldSelection(t *testing.T) {
	h := newHarness(t)
	o := h.run("discuss", "--sim", "-q", "--json", "status,synthesis,models", goldenTopic)
	if o.code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatal(err)
	}
	// A simulated run's fields come with simulated, never alone.
	if len(got) != 4 || string(got["status"]) != `"ok"` || !strings.Contains(string(got["synthesis"]), `"conclusion"`) ||
		string(got["models"]) == "" || string(got["simulated"]) != "true" {
		t.Errorf("selected = %s", o.stdout)
	}
	o = h.run("models", "--sim", "--json", "models,simulated")
	if !strings.Contains(o.stdout, `"simulated": true`) || !strings.Contains(o.stdout, `"id": "sim-moderator"`) || strings.Contains(o.stdout, `"command"`) {
		t.Errorf("models --json:\n%s", o.stdout)
	}
	// A field the result leaves out when empty is null, not missing.
	if o := h.run("ask", "--sim", "--json", "error,answer", "q"); !strings.Contains(o.stdout, `"error": null`) {
		t.Errorf("ask --json error:\n%s", o.stdout)
	}
}

// JSON keeps a model's text whole, and a terminal showing it can act on
// none of it: encoding/json escapes C0 controls, the envelope escapes C1.
func TestJSONEscapesControls(t *testing.T) {
	const evil = "a \x1b[2J b \u009b31m c \x07 d"
	h := newHarness(t)
	h.simModels = func(p pace) []sim.Model {
		return []sim.Model{simquorum.Model("m").With(sim.Rule{Name: "evil", Match: func(sim.Turn) bool { return true }, Respond: sim.Always(sim.Text(evil))})}
	}
	o := h.run("ask", "--sim", "-q", "--json", "answer", "q")
	if o.code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	for _, r := range o.stdout {
		if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f && r != 0x7f {
			t.Errorf("control %U in the JSON output", r)
		}
	}
	var got struct{ Answer string }
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil || got.Answer != evil {
		t.Errorf("answer %q, %v", got.Answer, err)
	}
}

// A command that fails before it has a result still prints its envelope
// with -o json, status failed and the error: an empty diff (ok, nothing
// to review), no CLI, a broken config file, an input refused.
func TestEnvelopeWhenThereIsNoResult(t *testing.T) {
	h := newHarness(t)
	empty := writeFile(t, "empty.diff", "")
	bad := writeFile(t, "bad.diff", "hello\n")
	for _, c := range []struct {
		args   []string
		setup  func()
		code   int
		status string
		err    string
	}{
		{[]string{"review", "--sim", "-q", "-o", "json", empty}, nil, cmdutil.ExitOK, "ok", ""},
		{[]string{"review", "--sim", "-q", "-o", "json", bad}, nil, cmdutil.ExitUsage, "failed", "it has no file header"},
		{[]string{"discuss", "-q", "-o", "json", "--cli-path", "/no/such/copilot", "t"}, nil, cmdutil.ExitFailure, "failed", "cannot be run"},
		{[]string{"plan", "--sim", "-q", "-o", "json", "t"}, func() { h.writeConfig(`{"concurrency": 0}`) }, cmdutil.ExitFailure, "failed", "concurrency: must be at least 1"},
		{[]string{"ask", "--sim", "-q", "--json", "answer,status,error", "-m", "nope", "q"}, func() { h.writeConfig(`{}`) }, cmdutil.ExitUsage, "failed", "unknown model nope"},
	} {
		if c.setup != nil {
			c.setup()
		}
		o := h.run(c.args...)
		var env struct {
			Status string
			Error  *string
		}
		if err := json.Unmarshal([]byte(o.stdout), &env); err != nil || o.code != c.code || env.Status != c.status ||
			(c.err == "") != (env.Error == nil) || env.Error != nil && !strings.Contains(*env.Error, c.err) {
			t.Errorf("%q: exit %d, %v, stdout:\n%s\nstderr: %s", c.args, o.code, err, o.stdout, o.stderr)
		}
	}
}

// plan --json winner is the winning plan, not a letter to look up.
func TestPlanJSONWinnerIsThePlan(t *testing.T) {
	o := newHarness(t).run("plan", "--sim", "-q", "--json", "winner,standings", goldenTask)
	var got struct {
		Winner struct {
			Label, Model, Title, Raw string
			Steps                    []string
		}
		Standings []struct{ Label string }
	}
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil || o.code != cmdutil.ExitOK {
		t.Fatalf("exit %d, %v:\n%s", o.code, err, o.stdout)
	}
	w := got.Winner
	if len(got.Standings) == 0 || w.Label != got.Standings[0].Label || !strings.HasPrefix(w.Model, "sim-") || w.Title == "" || len(w.Steps) == 0 || w.Raw == "" {
		t.Errorf("winner = %+v\n%s", w, o.stdout)
	}
}

// --jq runs a jq expression over any command's JSON output, as gh's does:
// strings print as text, other values as JSON; a mistake in the
// expression is a usage error before anything runs; with text output it
// is refused.
func TestJQ(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"models", "--sim", "--jq", ".result.models[].id"}, cmdutil.ExitOK, "sim-alpha\nsim-beta\nsim-gamma\nsim-moderator\n"},
		{[]string{"models", "--sim", "--jq", "{n: (.result.models | length), s: .simulated}"}, cmdutil.ExitOK, "{\n  \"n\": 4,\n  \"s\": true\n}\n"},
		{[]string{"plan", "--sim", "-q", "--json", "winner", "--jq", ".winner.model", goldenTask}, cmdutil.ExitOK, "sim-"},
		{[]string{"config", "get", "timeout", "--jq", ".result.value"}, cmdutil.ExitOK, "15m\n"},
		{[]string{"ask", "--sim", "-q", "--jq", ".error, .status", "q"}, cmdutil.ExitOK, "null\nok\n"},
		{[]string{"models", "--sim", "--jq", ".result.models["}, cmdutil.ExitUsage, ""},
		{[]string{"models", "--sim", "-o", "text", "--jq", "."}, cmdutil.ExitUsage, ""},
		{[]string{"models", "--sim", "--jq", `error("boom")`}, cmdutil.ExitFailure, ""},
	} {
		o := h.run(c.args...)
		if o.code != c.code || !strings.HasPrefix(o.stdout, c.out) || c.out == "" && o.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, o.code, o.stdout, o.stderr)
		}
	}
	// A model's text printed as a string is cleaned for the terminal.
	h.simModels = func(p pace) []sim.Model {
		return []sim.Model{simquorum.Model("m").With(sim.Rule{Name: "evil", Match: func(sim.Turn) bool { return true }, Respond: sim.Always(sim.Text("a \x1b[2J b"))})}
	}
	if o := h.run("ask", "--sim", "-q", "--jq", ".result.answer", "q"); strings.Contains(o.stdout, "\x1b") || !strings.Contains(o.stdout, "a ") {
		t.Errorf("--jq printed %q", o.stdout)
	}
}

// --template formats any command's JSON output with a Go template, as
// gh's: fields by their JSON names, numbers as written, join for lists.
func TestTemplate(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"models", "--sim", "--template", `{{range .result.models}}{{.id}}{{"\n"}}{{end}}`}, cmdutil.ExitOK, "sim-alpha\nsim-beta\nsim-gamma\nsim-moderator\n"},
		{[]string{"config", "--template", `{{.command}} {{.status}} {{if .error}}{{.error}}{{else}}no error{{end}}`}, cmdutil.ExitOK, "config ok no error"},
		{[]string{"discuss", "--sim", "-q", "--json", "models", "--template", `{{join ", " .models}}`, "q"}, cmdutil.ExitOK, "sim-alpha, sim-beta, sim-gamma"},
		{[]string{"models", "--sim", "--template", "{{.nope"}, cmdutil.ExitUsage, ""},
		{[]string{"models", "--sim", "--template", "x", "--jq", "."}, cmdutil.ExitUsage, ""},
		{[]string{"models", "--sim", "-o", "markdown", "--template", "x"}, cmdutil.ExitUsage, ""},
	} {
		o := h.run(c.args...)
		if o.code != c.code || o.stdout != c.out {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, o.code, o.stdout, o.stderr)
		}
	}
}
