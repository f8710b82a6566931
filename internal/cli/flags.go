package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// opts are the command-line options that are not configuration settings.
type opts struct {
	configPath string
	transcript string
	quiet      bool
	verbose    bool
	sim        bool
	help       bool
}

// flagValue is one configuration flag as given on the command line.
type flagValue struct{ key, value, flag string }

// commandFlags declares the flags of a command. Configuration flags are
// recorded, not applied: they go on top of the file and environment,
// which are read only once --config is known.
func commandFlags(name string, stderr io.Writer, o *opts, given *[]flagValue, withQuorum bool) *flag.FlagSet {
	fs := flag.NewFlagSet("quorum "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	record := func(key, flagName string) func(string) error {
		return func(v string) error {
			*given = append(*given, flagValue{key, v, "--" + flagName})
			return nil
		}
	}
	var models []string
	addModel := func(v string) error {
		models = append(models, strings.Split(v, ",")...)
		// Every -m adds to one list: record the whole list each time; the
		// last record holds them all.
		*given = append(*given, flagValue{"models", strings.Join(models, ","), "--model"})
		return nil
	}
	fs.Func("model", "a model to use; repeat for several (`ID`)", addModel)
	fs.Func("m", "shorthand for --model", addModel)
	fs.StringVar(&o.configPath, "config", "", "the config `file` (default: $QUORUM_CONFIG, then the user config dir's quorum/config.json)")
	fs.Func("cli-path", "the Copilot CLI `binary`", record("cli-path", "cli-path"))
	fs.Func("cli-args", "extra `arguments` for the Copilot CLI, separated by spaces (such as --disable-builtin-mcps)", record("cli-args", "cli-args"))
	fs.Func("transport", "`stdio` or tcp, how to talk to the CLI", record("transport", "transport"))
	fs.Func("timeout", "time limit of the whole run (`duration`)", record("timeout", "timeout"))
	output := record("output", "output")
	fs.Func("output", "result `format`: text, markdown or json", output)
	fs.Func("o", "shorthand for --output", output)
	fs.BoolFunc("no-color", "no colour", func(v string) error {
		return record("no-color", "no-color")(boolText(v))
	})
	fs.BoolVar(&o.quiet, "quiet", false, "no progress output")
	fs.BoolVar(&o.quiet, "q", false, "shorthand for --quiet")
	fs.BoolVar(&o.verbose, "verbose", false, "structured logs on stderr")
	fs.BoolVar(&o.verbose, "v", false, "shorthand for --verbose")
	fs.BoolVar(&o.sim, "sim", false, "run on the simulated Copilot server built into quorum (no login needed)")
	fs.BoolVar(&o.help, "help", false, "show help")
	fs.BoolVar(&o.help, "h", false, "show help")
	if withQuorum {
		fs.Func("moderator", "the moderator `model`", record("moderator", "moderator"))
		fs.BoolFunc("review", "peer review in discussions (default true)", func(v string) error {
			return record("review", "review")(boolText(v))
		})
		fs.BoolFunc("no-review", "skip peer review", func(v string) error {
			b, err := strconv.ParseBool(boolText(v))
			if err != nil {
				return err
			}
			return record("review", "no-review")(strconv.FormatBool(!b))
		})
		fs.Func("reviewers", "answers each reviewer sees, 0 for all (`N`)", record("reviewers", "reviewers"))
		fs.Func("phase-timeout", "time limit of each phase (`duration`)", record("phase-timeout", "phase-timeout"))
		conc := record("concurrency", "concurrency")
		fs.Func("concurrency", "sessions running at once (`N`)", conc)
		fs.Func("j", "shorthand for --concurrency", conc)
		fs.StringVar(&o.transcript, "transcript", "", "write every prompt, response and event as JSON lines to `file`")
	}
	return fs
}

func boolText(v string) string {
	if v == "" {
		return "true"
	}
	return v
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments, as people type them: quorum discuss "topic" -m a -m b.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func (f flagValue) String() string { return fmt.Sprintf("%s=%s", f.flag, f.value) }
