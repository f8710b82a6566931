package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/quorum"
)

// Flags beat the environment, which beats the file, which beats defaults;
// `quorum config` says where each value came from, in text and JSON.
func TestConfigShowsWhereValuesComeFrom(t *testing.T) {
	h := newHarness(t)
	h.writeConfig(`{"models": ["file-a", "file-b"], "moderator": "file-mod", "timeout": "20m", "review": false}`)
	h.env["QUORUM_MODERATOR"] = "env-mod"
	h.env["QUORUM_TIMEOUT"] = "30m"
	o := h.run("config", "-o", "json")
	if o.code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var r struct {
		Command string
		Status  string
		Result  struct {
			File     string
			Settings []config.Origin
		}
	}
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
		t.Fatal(err)
	}
	got := map[string]config.Origin{}
	for _, s := range r.Result.Settings {
		got[s.Key] = s
	}
	for k, w := range map[string][2]string{
		"models":      {"file-a,file-b", "file"},
		"moderator":   {"env-mod", "env"},
		"timeout":     {"30m", "env"},
		"review":      {"false", "file"},
		"concurrency": {"8", "default"},
	} {
		if got[k].Value != w[0] || string(got[k].Source) != w[1] {
			t.Errorf("%s = %+v, want %s from %s", k, got[k], w[0], w[1])
		}
	}
	if r.Command != "config" || r.Status != "ok" || r.Result.File != h.configFile() {
		t.Errorf("envelope: %+v", r)
	}
	text := h.run("config").stdout
	for _, want := range []string{"config file: " + h.configFile(), "moderator      env-mod        env QUORUM_MODERATOR", "concurrency    8              default"} {
		if !strings.Contains(text, want) {
			t.Errorf("config text lacks %q:\n%s", want, text)
		}
	}
}

// config set writes the file (typed JSON, the other settings kept), get
// reads the effective value, unset removes it; every later command sees
// the change.
func TestConfigSetGetUnset(t *testing.T) {
	h := newHarness(t)
	h.writeConfig(`{"review": false}`)
	for _, kv := range [][2]string{{"models", "sim-alpha,sim-gamma"}, {"timeout", "2m"}} {
		if o := h.run("config", "set", kv[0], kv[1]); o.code != cmdutil.ExitOK || o.stdout != "" {
			t.Fatalf("set %s: exit %d: %s", kv[0], o.code, o.stderr)
		}
	}
	b, _ := os.ReadFile(h.configFile())
	if string(b) != "{\n  \"models\": [\"sim-alpha\",\"sim-gamma\"],\n  \"review\": false,\n  \"timeout\": \"2m\"\n}\n" {
		t.Errorf("file:\n%s", b)
	}
	if o := h.run("config", "get", "timeout"); o.stdout != "2m\n" {
		t.Errorf("get timeout = %q", o.stdout)
	}
	if o := h.run("config", "get", "models", "-o", "json"); !strings.Contains(o.stdout, `"source": "file"`) || !strings.Contains(o.stdout, `"value": "sim-alpha,sim-gamma"`) {
		t.Errorf("get -o json:\n%s", o.stdout)
	}
	// The file now names the participants of a run.
	if o := h.run("discuss", "--sim", "-q", "--json", "models", goldenTopic); !strings.Contains(o.stdout, `"sim-alpha",`) || strings.Contains(o.stdout, "sim-beta") {
		t.Errorf("models of a run after config set: %s", o.stdout)
	}
	if o := h.run("config", "unset", "timeout"); o.code != cmdutil.ExitOK {
		t.Fatal(o.stderr)
	}
	if o := h.run("config", "get", "timeout"); o.stdout != "15m\n" {
		t.Errorf("after unset: %q", o.stdout)
	}
	// The environment hides the file: set says so.
	h.env["QUORUM_MODERATOR"] = "sim-beta"
	if o := h.run("config", "set", "moderator", "sim-gamma"); o.code != cmdutil.ExitOK || !strings.Contains(o.stderr, "$QUORUM_MODERATOR is set, and beats the config file") {
		t.Errorf("set under an env var: exit %d, %q", o.code, o.stderr)
	}
}

// A malformed config file stops the commands that run models with its
// path, line and column and exit 1 (not 2: the command line is right);
// version, config and help still work, and config set can repair a bad
// value.
func TestMalformedConfigFile(t *testing.T) {
	h := newHarness(t)
	h.writeConfig("{\n  \"models\": [\"a\"],\n  \"concurrency\": \"lots\"\n}\n")
	want := "the config file " + h.configFile() + ":3:18: concurrency: must be a whole number (got \"lots\")"
	for _, args := range [][]string{{"discuss", "--sim", "q"}, {"plan", "--sim", "q"}} {
		o := h.run(args...)
		if o.code != cmdutil.ExitFailure || o.stderr != "quorum: "+want+"\nRepair it with quorum config set concurrency VALUE, or go back to the default with quorum config unset concurrency.\n" {
			t.Errorf("%q: exit %d, stderr %q", args, o.code, o.stderr)
		}
	}
	// ask and models open one session at most: concurrency is not theirs.
	for _, args := range [][]string{{"ask", "--sim", "-m", "sim-alpha", "q"}, {"models", "--sim"}} {
		o := h.run(args...)
		if o.code != cmdutil.ExitOK || !strings.Contains(o.stderr, "quorum: warning: "+want+"; quorum "+args[0]+" does not use concurrency") {
			t.Errorf("%q: exit %d, stderr %q", args, o.code, o.stderr)
		}
	}
	if o := h.run("version"); o.code != cmdutil.ExitOK || !strings.HasPrefix(o.stdout, "quorum ") || !strings.Contains(o.stderr, "quorum: warning: "+want) {
		t.Errorf("version: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	if o := h.run("help", "discuss"); o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "USAGE") {
		t.Errorf("help: exit %d", o.code)
	}
	o := h.run("config")
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "(its wrong values are not used, see below)") || !strings.Contains(o.stdout, "concurrency    8") || !strings.Contains(o.stderr, want) {
		t.Errorf("config: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := h.run("config", "set", "concurrency", "4"); o.code != cmdutil.ExitOK {
		t.Fatalf("set to repair: exit %d: %s", o.code, o.stderr)
	}
	if o := h.run("config", "get", "concurrency"); o.code != cmdutil.ExitOK || o.stdout != "4\n" || o.stderr != "" {
		t.Errorf("after the repair: exit %d, %q %q", o.code, o.stdout, o.stderr)
	}
	h.writeConfig("{\"review\": tru")
	if o := h.run("discuss", "--sim", "q"); o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, h.configFile()+":1:15: not valid JSON: the JSON ends too soon") {
		t.Errorf("syntax: exit %d, %q", o.code, o.stderr)
	}
	if o := h.run("config", "set", "review", "true"); o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, ":1:15:") {
		t.Errorf("set on broken JSON: exit %d, %q", o.code, o.stderr)
	}
	// A bad environment variable is a configuration problem too, not usage.
	h.writeConfig("{}")
	h.env["QUORUM_OUTPUT"] = "yaml"
	if o := h.run("models", "--sim"); o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, `QUORUM_OUTPUT="yaml" must be one of text, markdown, json`) {
		t.Errorf("env: exit %d, %q", o.code, o.stderr)
	}
}

// A value a run would refuse is refused by config set (exit 2, as on the
// command line); one in the file names the file, its line and the setting,
// and stops only the commands that use it; every problem is told at once.
func TestConfigRefusesWhatARunRefuses(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "set", "rounds", "11"}, `rounds="11": must be 1 to 10`},
		{[]string{"config", "set", "models", ""}, "no value for models; to go back to the default, use quorum config unset models"},
		{[]string{"config", "set", "models", "a,b,a"}, "names a twice"},
		{[]string{"config", "set", "concurrency", "-5"}, `concurrency="-5": must not be negative`},
		{[]string{"config", "set", "reviewers", "-1"}, `reviewers="-1": must not be negative`},
	} {
		if o := h.run(c.args...); o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, o.code, o.stderr, c.want)
		}
	}
	if _, err := os.Stat(h.configFile()); err == nil {
		t.Errorf("a refused value was written")
	}

	// A value that starts with a dash is a value: the CLI's own flags.
	if o := h.run("config", "set", "cli-args", "--disable-builtin-mcps --no-color"); o.code != cmdutil.ExitOK {
		t.Errorf("set cli-args: exit %d, %q", o.code, o.stderr)
	}
	if o := h.run("config", "get", "cli-args"); o.stdout != "--disable-builtin-mcps --no-color\n" {
		t.Errorf("get cli-args: %q", o.stdout)
	}

	h.writeConfig(`{"rounds": 11}`)
	o := h.run("discuss", "--sim", "-q", "-o", "json", "t")
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stderr, "quorum: warning: the config file "+h.configFile()+":1:12: rounds: must be 1 to 10 (got 11); quorum discuss does not use rounds") {
		t.Errorf("discuss: exit %d, stderr %q", o.code, o.stderr)
	}
	o = h.run("debate", "--sim", "-q", "t")
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "the config file "+h.configFile()+":1:12: rounds: must be 1 to 10 (got 11)") ||
		!strings.Contains(o.stderr, "quorum config set rounds VALUE") || strings.Contains(o.stderr, "Config.") {
		t.Errorf("debate: exit %d, stderr %q", o.code, o.stderr)
	}

	h.writeConfig(`{"rounds": 0, "concurrency": -1, "output": "x"}`)
	o = h.run("debate", "--sim", "-q", "t")
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "3 problems in the settings:") ||
		!strings.Contains(o.stderr, ":1:12: rounds") || !strings.Contains(o.stderr, ":1:30: concurrency") || !strings.Contains(o.stderr, ":1:44: output") {
		t.Errorf("all at once: exit %d, stderr %q", o.code, o.stderr)
	}

	h.writeConfig("not json")
	o = h.run("config", "set", "rounds", "3")
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "fix it in an editor, or remove it (rm "+h.configFile()+")") {
		t.Errorf("set on a file that is not JSON: exit %d, stderr %q", o.code, o.stderr)
	}
}

// config's limit on rounds is the quorum package's.
func TestMaxRoundsIsQuorums(t *testing.T) {
	if config.MaxRounds != quorum.MaxRounds {
		t.Errorf("config.MaxRounds = %d, quorum.MaxRounds = %d", config.MaxRounds, quorum.MaxRounds)
	}
}
