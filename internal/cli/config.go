package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A setting's value comes from one of these layers; later layers win:
// built-in defaults, the config file, the environment, the command line.
const (
	sourceDefault = "default"
	sourceFile    = "file"
	sourceEnv     = "env"
	sourceFlag    = "flag"
)

// setting is one configuration key: its value as text and where it came
// from.
type setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
	// Detail names the file, variable or flag.
	Detail string `json:"detail,omitempty"`
}

// key describes one configuration key.
type key struct {
	name, env, def, help string
	check                func(string) error
}

// keys are every configuration key, in display order.
var keys = []key{
	{"models", "QUORUM_MODELS", "", "participant models, comma-separated (default: the first three the CLI offers)", nil},
	{"moderator", "QUORUM_MODERATOR", "", "the moderator model (default: the first participant)", nil},
	{"review", "QUORUM_REVIEW", "true", "peer review in discussions", checkBool},
	{"reviewers", "QUORUM_REVIEWERS", "0", "answers each reviewer sees (0: all the others)", checkInt},
	{"phase-timeout", "QUORUM_PHASE_TIMEOUT", "5m", "time limit of each phase", checkDuration},
	{"timeout", "QUORUM_TIMEOUT", "15m", "time limit of the whole run", checkDuration},
	{"concurrency", "QUORUM_CONCURRENCY", "8", "sessions running at once", checkInt},
	{"cli-path", "COPILOT_CLI_PATH", "", "the Copilot CLI binary (default: `copilot` on PATH)", nil},
	{"cli-args", "QUORUM_CLI_ARGS", "", "extra arguments for the Copilot CLI, separated by spaces (no quoting), such as --disable-builtin-mcps", nil},
	{"transport", "QUORUM_TRANSPORT", "stdio", "how to talk to the CLI: stdio or tcp", checkOneOf("stdio", "tcp")},
	{"output", "QUORUM_OUTPUT", "text", "result format: text, markdown or json", checkOneOf("text", "markdown", "json")},
	{"no-color", "NO_COLOR", "false", "no colour in terminal output", nil},
}

func checkBool(v string) error {
	_, err := strconv.ParseBool(v)
	return err
}

func checkInt(v string) error {
	n, err := strconv.Atoi(v)
	if err == nil && n < 0 {
		err = errors.New("must not be negative")
	}
	return err
}

func checkDuration(v string) error {
	d, err := time.ParseDuration(v)
	if err == nil && d <= 0 {
		err = errors.New("must be positive")
	}
	return err
}

func checkOneOf(vals ...string) func(string) error {
	return func(v string) error {
		for _, x := range vals {
			if v == x {
				return nil
			}
		}
		return fmt.Errorf("must be one of %s", strings.Join(vals, ", "))
	}
}

// config is the effective configuration.
type config struct {
	settings map[string]setting
	path     string // the config file consulted
}

func (c *config) set(name, value, source, detail string) error {
	for _, k := range keys {
		if k.name != name {
			continue
		}
		if name == "no-color" && source == sourceEnv {
			value = strconv.FormatBool(value != "") // NO_COLOR: any value means yes
		}
		if k.check != nil && value != "" {
			if err := k.check(value); err != nil {
				return usagef("%s: %s=%q: %v", detailOr(source, detail), name, value, err)
			}
		}
		c.settings[name] = setting{Key: name, Value: value, Source: source, Detail: detail}
		return nil
	}
	return usagef("%s: unknown setting %q (known: %s)", detailOr(source, detail), name, knownKeys())
}

func detailOr(source, detail string) string {
	if detail != "" {
		return detail
	}
	return source
}

func knownKeys() string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// loadConfig builds the configuration from defaults, the file and the
// environment; flags are applied afterwards by the caller.
func loadConfig(e *env, explicitPath string) (*config, error) {
	c := &config{settings: map[string]setting{}}
	for _, k := range keys {
		c.settings[k.name] = setting{Key: k.name, Value: k.def, Source: sourceDefault}
	}
	path, required := explicitPath, explicitPath != ""
	if path == "" {
		path = e.getenv("QUORUM_CONFIG")
		required = path != ""
	}
	if path == "" {
		if dir, err := e.configDir(); err == nil {
			path = filepath.Join(dir, "quorum", "config.json")
		}
	}
	c.path = path
	if path != "" {
		if err := c.loadFile(path, required); err != nil {
			return nil, err
		}
	}
	for _, k := range keys {
		if v := e.getenv(k.env); v != "" {
			if err := c.set(k.name, v, sourceEnv, k.env); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

func (c *config) loadFile(path string, required bool) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil
	}
	if err != nil {
		return usagef("reading the config file: %v", err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return usagef("%s is not a JSON object: %v", path, err)
	}
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var v string
		switch x := raw[n].(type) {
		case string:
			v = x
		case bool:
			v = strconv.FormatBool(x)
		case float64:
			v = strconv.FormatFloat(x, 'f', -1, 64)
		case []any:
			parts := make([]string, 0, len(x))
			for _, p := range x {
				s, ok := p.(string)
				if !ok {
					return usagef("%s: %s must be a list of strings", path, n)
				}
				parts = append(parts, s)
			}
			v = strings.Join(parts, ",")
		default:
			return usagef("%s: %s has an unsupported value", path, n)
		}
		if err := c.set(n, v, sourceFile, path); err != nil {
			return err
		}
	}
	return nil
}

// The typed accessors; values were checked when set.

func (c *config) str(name string) string { return c.settings[name].Value }

func (c *config) list(name string) []string {
	var out []string
	for _, p := range strings.Split(c.str(name), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (c *config) boolean(name string) bool {
	b, _ := strconv.ParseBool(c.str(name))
	return b
}

func (c *config) integer(name string) int {
	n, _ := strconv.Atoi(c.str(name))
	return n
}

func (c *config) duration(name string) time.Duration {
	d, _ := time.ParseDuration(c.str(name))
	return d
}

// effective lists every setting in display order.
func (c *config) effective() []setting {
	out := make([]setting, len(keys))
	for i, k := range keys {
		out[i] = c.settings[k.name]
	}
	return out
}
