package config

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxRounds is the most rounds a debate takes: quorum.MaxRounds, which a
// test holds it to (config does not import the quorum package, and so
// neither the SDK).
const MaxRounds = 10

// kind is the type of a setting's value: how text is checked, parsed into
// Settings and written to the file.
type kind int

const (
	kindString kind = iota
	kindList        // comma-separated text, or a JSON list of strings
	kindWords       // space-separated text, or a JSON list of strings
	kindBool
	kindInt      // a non-negative integer
	kindCount    // a positive integer
	kindDuration // a positive Go duration ("90s", "5m")
	kindAmount   // a non-negative decimal number ("300", "7.5")
	kindEnum
)

// Key is one setting: its name (in the file, and the flag that sets it),
// its environment variable, its built-in default and what it means.
type Key struct {
	Name    string
	Env     string
	Default string
	Help    string
	kind    kind
	values  []string // kindEnum: the allowed values
	// most is the largest value of a number (0: no limit); distinct says
	// that a list may not name an item twice. They are the limits a run
	// puts on the value, checked here so that config set, the file, the
	// environment and the flags refuse what the run would.
	most     int
	distinct bool
	// set stores a checked value in Settings.
	set func(s *Settings, v string)
}

// Keys are every setting, in display order.
var Keys = []Key{
	{Name: "models", Env: "QUORUM_MODELS", Help: "participant models, comma-separated (default: the first three the CLI offers)",
		kind: kindList, distinct: true, set: func(s *Settings, v string) { s.Models = splitList(v) }},
	{Name: "moderator", Env: "QUORUM_MODERATOR", Help: "the moderator model of discussions (default: the first participant)",
		set: func(s *Settings, v string) { s.Moderator = v }},
	{Name: "review", Env: "QUORUM_REVIEW", Default: "true", Help: "peer review in discussions",
		kind: kindBool, set: func(s *Settings, v string) { s.Review = parseBool(v) }},
	{Name: "reviewers", Env: "QUORUM_REVIEWERS", Default: "0", Help: "answers each reviewer sees (0: all the others)",
		kind: kindInt, set: func(s *Settings, v string) { s.Reviewers, _ = strconv.Atoi(v) }},
	{Name: "rounds", Env: "QUORUM_ROUNDS", Default: "2", Help: "rounds of a debate after its opening, at most 10 (it ends sooner once no blocking objection stands)",
		kind: kindCount, most: MaxRounds, set: func(s *Settings, v string) { s.Rounds, _ = strconv.Atoi(v) }},
	{Name: "fail-on", Env: "QUORUM_FAIL_ON", Default: "blocking", Help: "the least severity of a review finding that fails the review (exit 1): blocking, major, minor, or none",
		kind: kindEnum, values: []string{"blocking", "major", "minor", "none"}, set: func(s *Settings, v string) { s.FailOn = v }},
	{Name: "max-premium", Env: "QUORUM_MAX_PREMIUM", Default: "0", Help: "the most premium requests one run may spend (0: no cap); a run shrinks to fit, and stops with what it has at the cap",
		kind: kindAmount, set: func(s *Settings, v string) { s.MaxPremium, _ = strconv.ParseFloat(v, 64) }},
	{Name: "early-stop", Env: "QUORUM_EARLY_STOP", Default: "true", Help: "skip the reviews and votes that can no longer change the winner",
		kind: kindBool, set: func(s *Settings, v string) { s.EarlyStop = parseBool(v) }},
	{Name: "phase-timeout", Env: "QUORUM_PHASE_TIMEOUT", Default: "5m", Help: "time limit of each phase",
		kind: kindDuration, set: func(s *Settings, v string) { s.PhaseTimeout, _ = time.ParseDuration(v) }},
	{Name: "timeout", Env: "QUORUM_TIMEOUT", Default: "15m", Help: "time limit of the whole run",
		kind: kindDuration, set: func(s *Settings, v string) { s.Timeout, _ = time.ParseDuration(v) }},
	{Name: "concurrency", Env: "QUORUM_CONCURRENCY", Default: "8", Help: "sessions running at once",
		kind: kindCount, set: func(s *Settings, v string) { s.Concurrency, _ = strconv.Atoi(v) }},
	{Name: "sim", Env: "QUORUM_SIM", Default: "false", Help: "run on the simulated Copilot server built into quorum, as --sim does: no Copilot CLI or login needed (QUORUM_SIM=1 too; --sim=false turns it off for one run)",
		kind: kindBool, set: func(s *Settings, v string) { s.Sim = parseBool(v) }},
	{Name: "cli-path", Env: "COPILOT_CLI_PATH", Help: "the Copilot CLI binary (default: `copilot` on PATH)",
		set: func(s *Settings, v string) { s.CLIPath = v }},
	{Name: "cli-args", Env: "QUORUM_CLI_ARGS", Help: "extra arguments for the Copilot CLI, separated by spaces (no quoting), such as --disable-builtin-mcps",
		kind: kindWords, set: func(s *Settings, v string) { s.CLIArgs = strings.Fields(v) }},
	{Name: "transport", Env: "QUORUM_TRANSPORT", Default: "stdio", Help: "how to talk to the CLI: stdio or tcp",
		kind: kindEnum, values: []string{"stdio", "tcp"}, set: func(s *Settings, v string) { s.Transport = v }},
	{Name: "output", Env: "QUORUM_OUTPUT", Default: "text", Help: "result format: text, markdown or json",
		kind: kindEnum, values: []string{"text", "markdown", "json"}, set: func(s *Settings, v string) { s.Output = v }},
	{Name: "no-color", Env: "NO_COLOR", Default: "false", Help: "no colour in terminal output (NO_COLOR: any value means yes)",
		kind: kindBool, set: func(s *Settings, v string) { s.NoColor = parseBool(v) }},
}

// Lookup returns the key called name.
func Lookup(name string) (Key, bool) {
	for _, k := range Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Names lists every key's name, in display order.
func Names() []string {
	names := make([]string, len(Keys))
	for i, k := range Keys {
		names[i] = k.Name
	}
	return names
}

// Values are the allowed values of an enumerated key (output, transport),
// for help and shell completion; nil for the others.
func (k Key) Values() []string { return k.values }

// Check reports whether v is a valid value of k, saying what a valid one
// looks like when it is not. The empty value is valid for every key whose
// default is empty.
func (k Key) Check(v string) error {
	if v == "" && k.Default == "" {
		return nil
	}
	switch k.kind {
	case kindBool:
		if _, err := strconv.ParseBool(v); err != nil {
			return errors.New("must be true or false")
		}
	case kindAmount:
		x, err := strconv.ParseFloat(v, 64)
		switch {
		case err != nil || math.IsInf(x, 0) || math.IsNaN(x):
			return errors.New("must be a number, such as 50 or 7.5")
		case x < 0:
			return errors.New("must not be negative")
		}
	case kindInt, kindCount:
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			return errors.New("must be a whole number")
		case n < 0:
			return errors.New("must not be negative")
		case k.most > 0 && (n < 1 || n > k.most):
			return fmt.Errorf("must be 1 to %d", k.most)
		case n == 0 && k.kind == kindCount:
			return errors.New("must be at least 1")
		}
	case kindList:
		items := splitList(v)
		if len(items) == 0 {
			return errors.New("names nothing; give at least one, separated by commas")
		}
		for i, x := range items {
			if k.distinct && slices.Contains(items[:i], x) {
				return fmt.Errorf("names %s twice; name each once", x)
			}
		}
	case kindDuration:
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			return errors.New(`must be a duration such as "90s", "5m" or "1h30m"`)
		case d <= 0:
			return errors.New("must be positive")
		}
	case kindEnum:
		for _, x := range k.values {
			if v == x {
				return nil
			}
		}
		return fmt.Errorf("must be one of %s", strings.Join(k.values, ", "))
	}
	return nil
}

func parseBool(v string) bool {
	b, _ := strconv.ParseBool(v)
	return b
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
