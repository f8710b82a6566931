package cli

import (
	"encoding/json"
	"strings"
	"testing"
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
		if o.code != ExitOK {
			t.Errorf("%q: exit %d: %s", args, o.code, o.stderr)
			continue
		}
		var env map[string]json.RawMessage
		if err := json.Unmarshal([]byte(o.stdout), &env); err != nil {
			t.Errorf("%q: %v\n%s", args, err, o.stdout)
			continue
		}
		for _, k := range []string{"command", "simulated", "status", "result"} {
			if _, ok := env[k]; !ok {
				t.Errorf("%q: no %q in the envelope", args, k)
			}
		}
		if string(env["status"]) != `"ok"` || string(env["command"]) != `"`+name+`"` {
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
	if o.code != ExitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || string(got["status"]) != `"ok"` || !strings.Contains(string(got["synthesis"]), `"conclusion"`) ||
		string(got["models"]) == "" {
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
