package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// layers reads a config directory dir with the environment env.
func layers(dir string, env map[string]string, flags ...FlagValue) Layers {
	return Layers{
		Getenv:    func(k string) string { return env[k] },
		ConfigDir: func() (string, error) { return dir, nil },
		Flags:     flags,
	}
}

func writeFile(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "quorum", "config.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Flags beat the environment, which beats the file, which beats the
// defaults; each value says where it came from, and Settings are typed.
func TestLoadPrecedence(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, `{"models": ["file-a", "file-b"], "moderator": "file-mod", "timeout": "20m", "review": false, "concurrency": 3}`)
	l, err := Load(layers(dir, map[string]string{"QUORUM_MODERATOR": "env-mod", "QUORUM_TIMEOUT": "30m", "NO_COLOR": "0"},
		FlagValue{"timeout", "40m", "--timeout"}))
	if err != nil {
		t.Fatal(err)
	}
	s := l.Settings
	if strings.Join(s.Models, ",") != "file-a,file-b" || s.Moderator != "env-mod" || s.Timeout != 40*time.Minute ||
		s.Review || s.Concurrency != 3 || s.PhaseTimeout != 5*time.Minute || !s.NoColor || s.Output != "text" {
		t.Errorf("settings = %+v", s)
	}
	for key, want := range map[string]Origin{
		"models":      {"models", "file-a,file-b", SourceFile, path},
		"moderator":   {"moderator", "env-mod", SourceEnv, "QUORUM_MODERATOR"},
		"timeout":     {"timeout", "40m", SourceFlag, "--timeout"},
		"reviewers":   {"reviewers", "0", SourceDefault, ""},
		"no-color":    {"no-color", "true", SourceEnv, "NO_COLOR"},
		"concurrency": {"concurrency", "3", SourceFile, path},
	} {
		if got := l.Origin(key); got != want {
			t.Errorf("%s: %+v, want %+v", key, got, want)
		}
	}
	if l.File != path || l.FileErr != nil {
		t.Errorf("file %q, %v", l.File, l.FileErr)
	}
}

// A broken file is reported with its path, line and column; the other
// layers are still read, so that commands that only report (config,
// version) can go on.
func TestFileErrorsPointAtTheMistake(t *testing.T) {
	for _, c := range []struct {
		name, body string
		line, col  int
		msg        string
	}{
		{"syntax", "{\n  \"models\": [\"a\",\n  \"timeout\": \"5m\"\n}", 3, 12, "not valid JSON"},
		{"trailing comma", "{\"review\": true,\n}", 2, 1, "not valid JSON"},
		{"truncated", "{\"review\": tr", 1, 14, "the JSON ends too soon"},
		{"not an object", "\n  [1, 2]", 2, 3, "must hold one JSON object"},
		{"bad value", "{\n  \"concurrency\": \"lots\"\n}", 2, 18, `concurrency: must be a whole number (got "lots")`},
		{"unknown", "{\"review\": true, \"colour\": \"yes\"}", 1, 18, "colour: unknown setting (known: models,"},
		{"duplicate", "{\"review\": true,\n\"review\": false}", 2, 1, "review: set twice (first on line 1)"},
		{"number for a duration", `{"timeout": 300}`, 1, 13, `timeout: must be a duration in quotes, such as "5m"`},
		{"list for a single value", `{"moderator": ["a"]}`, 1, 15, "moderator: takes one value, not a list"},
		{"null", `{"moderator": null}`, 1, 15, "moderator: is null; give a value, or remove the line (quorum config unset moderator)"},
		{"after the object", `{} {}`, 1, 4, "after top-level value"},
		{"wide characters count once", `{"moderator": "日本", "x": 1}`, 1, 21, "x: unknown setting"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, c.body)
			l, err := Load(layers(dir, map[string]string{"QUORUM_MODERATOR": "env-mod"}))
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != path || fe.Line != c.line || fe.Column != c.col || !strings.Contains(fe.Msg, c.msg) {
				t.Fatalf("err = %v (%+v), want %s:%d:%d: %s", err, fe, path, c.line, c.col, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "the config file "+path+":") {
				t.Errorf("message %q does not start with the file and position", err)
			}
			if l == nil || l.FileErr != err || l.Settings.Moderator != "env-mod" || l.Settings.Timeout != 15*time.Minute {
				t.Errorf("loaded = %+v", l)
			}
		})
	}
}

func TestFileNamedButMissing(t *testing.T) {
	l := layers(t.TempDir(), nil)
	l.Path = filepath.Join(t.TempDir(), "nope.json")
	_, err := Load(l)
	var fe *FileError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "cannot be read: no such file or directory") {
		t.Errorf("err = %v", err)
	}
	// The default file may be absent.
	if _, err := Load(layers(t.TempDir(), nil)); err != nil {
		t.Errorf("absent default file: %v", err)
	}
}

func TestEnvAndFlagErrors(t *testing.T) {
	_, err := Load(layers(t.TempDir(), map[string]string{"QUORUM_OUTPUT": "yaml"}))
	var ee *EnvError
	if !errors.As(err, &ee) || err.Error() != `the environment variable QUORUM_OUTPUT="yaml" must be one of text, markdown, json` {
		t.Errorf("env: %v", err)
	}
	_, err = Load(layers(t.TempDir(), nil, FlagValue{"concurrency", "0", "-j"}))
	var fe *FlagError
	if !errors.As(err, &fe) || err.Error() != `invalid argument "0" for -j: must be at least 1` {
		t.Errorf("flag: %v", err)
	}
}

func TestKeyChecks(t *testing.T) {
	for _, c := range []struct {
		key, value string
		ok         bool
	}{
		{"review", "false", true}, {"review", "maybe", false},
		{"reviewers", "0", true}, {"reviewers", "-1", false}, {"reviewers", "x", false},
		{"concurrency", "1", true}, {"concurrency", "0", false},
		{"phase-timeout", "90s", true}, {"phase-timeout", "0s", false}, {"phase-timeout", "5", false},
		{"transport", "tcp", true}, {"transport", "udp", false},
		{"output", "markdown", true}, {"output", "yaml", false},
		{"moderator", "", true}, {"models", "a, b", true},
	} {
		k, _ := Lookup(c.key)
		if err := k.Check(c.value); (err == nil) != c.ok {
			t.Errorf("%s=%q: %v", c.key, c.value, err)
		}
	}
}

// set writes typed JSON, keeps the other settings, and can repair a bad
// value; a file that is not JSON is left alone; unset removes a setting.
func TestSetAndUnset(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "config.json")
	for _, kv := range [][2]string{{"models", "a, b"}, {"review", "false"}, {"concurrency", "4"}, {"timeout", "1h"}, {"cli-args", "--x --y"}} {
		if err := Set(path, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	want := "{\n  \"models\": [\"a\",\"b\"],\n  \"review\": false,\n  \"timeout\": \"1h\",\n  \"concurrency\": 4,\n  \"cli-args\": [\"--x\",\"--y\"]\n}\n"
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	l := layers(dir, nil)
	l.Path = path
	got, err := Load(l)
	if err != nil || strings.Join(got.Settings.Models, "|") != "a|b" || got.Settings.Review || got.Settings.Concurrency != 4 ||
		strings.Join(got.Settings.CLIArgs, "|") != "--x|--y" {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	if err := Unset(path, "review"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "review") {
		t.Errorf("unset left review:\n%s", b)
	}
	for _, c := range [][2]string{{"colour", "x"}, {"concurrency", "many"}, {"moderator", ""}} {
		if err := Set(path, c[0], c[1]); err == nil {
			t.Errorf("set %s=%q was accepted", c[0], c[1])
		}
	}

	// A bad value elsewhere does not stop set; set repairs its own key.
	if err := os.WriteFile(path, []byte(`{"concurrency": "lots", "review": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o600)
	if err := Set(path, "concurrency", "2"); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", st.Mode().Perm())
	}
	if _, err := Load(l); err != nil {
		t.Errorf("after the repair: %v", err)
	}
	broken := []byte("{\"review\": tru")
	os.WriteFile(path, broken, 0o644)
	var fe *FileError
	if err := Set(path, "review", "true"); !errors.As(err, &fe) || fe.Line != 1 {
		t.Errorf("set on a broken file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(broken) {
		t.Errorf("a broken file was rewritten: %q", b)
	}
}

// Every mistake of the file is reported at once, each naming its setting;
// the settings the file gives right are kept, the wrong ones left at the
// layers below.
func TestFileProblemsAllAtOnce(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, `{"rounds": 11, "concurrency": -1, "output": "x", "timeout": "20m", "roudns": 3}`)
	l, err := Load(layers(dir, nil))
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 4 {
		t.Fatalf("err = %v, want 4 problems", err)
	}
	for i, want := range []struct{ key, msg string }{
		{"rounds", "rounds: must be 1 to 10 (got 11)"},
		{"concurrency", "concurrency: must not be negative (got -1)"},
		{"output", `output: must be one of text, markdown, json (got "x")`},
		{"", "roudns: unknown setting; did you mean rounds?"},
	} {
		if ProblemKey(ps[i]) != want.key || !strings.Contains(ps[i].Error(), want.msg) || !strings.HasPrefix(ps[i].Error(), "the config file "+path+":1:") {
			t.Errorf("problem %d: %v (key %q), want %q about %q", i, ps[i], ProblemKey(ps[i]), want.msg, want.key)
		}
	}
	if l.FileUnusable || l.Settings.Timeout != 20*time.Minute || l.Settings.Rounds != 2 || l.Settings.Concurrency != 8 {
		t.Errorf("loaded = %+v", l)
	}
}

// What a run refuses, every layer refuses: rounds above 10, a model named
// twice, a list naming nothing.
func TestChecksMatchTheRun(t *testing.T) {
	for _, c := range []struct{ key, value, msg string }{
		{"rounds", "11", "must be 1 to 10"},
		{"rounds", "0", "must be 1 to 10"},
		{"models", "a,b,a", "names a twice"},
		{"models", ",", "names nothing"},
	} {
		k, _ := Lookup(c.key)
		if err := k.Check(c.value); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s=%q: %v, want %q", c.key, c.value, err, c.msg)
		}
	}
	k, _ := Lookup("rounds")
	if err := k.Check("10"); err != nil {
		t.Errorf("rounds=10: %v", err)
	}
}

// A file that is not JSON says what to do: fix it, or remove it.
func TestUnusableFileSaysFixOrRemove(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "garbage")
	l, err := Load(layers(dir, nil))
	if err == nil || !l.FileUnusable || !strings.Contains(err.Error(), "not valid JSON") || !strings.Contains(err.Error(), "or remove it (rm "+path+")") {
		t.Errorf("load: %v", err)
	}
	if err := Set(path, "rounds", "3"); err == nil || !strings.Contains(err.Error(), "fix it in an editor, or remove it (rm "+path+")") {
		t.Errorf("set: %v", err)
	}
}
