// Package config is the quorum command's configuration, in production:
// every setting's name, environment variable, default and check (Keys),
// read once from four layers into the typed Settings, and the config file
// read with the line and column of every mistake and written by `quorum
// config set`.
//
// Later layers win: built-in defaults, the config file, the environment,
// the command line. Load records where each value came from (Origins),
// which `quorum config` shows.
package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Settings are the effective settings, typed; every value was checked.
type Settings struct {
	Models       []string
	Moderator    string
	Review       bool
	Reviewers    int
	Rounds       int
	FailOn       string // "blocking", "major", "minor" or "none"
	PhaseTimeout time.Duration
	Timeout      time.Duration
	Concurrency  int
	// MaxPremium caps a run's premium requests (0: no cap); EarlyStop
	// skips the reviews and votes that can no longer change the winner.
	MaxPremium float64
	EarlyStop  bool
	// Sim runs on the simulator built into quorum instead of the Copilot
	// CLI (--sim, or the setting for those who try quorum first).
	Sim       bool
	CLIPath   string
	CLIArgs   []string
	Transport string // "stdio" or "tcp"
	Output    string // "text", "markdown" or "json"
	NoColor   bool
}

// Source is the layer a value came from.
type Source string

const (
	SourceDefault Source = "default"
	SourceFile    Source = "file"
	SourceEnv     Source = "env"
	SourceFlag    Source = "flag"
)

// Origin is one setting's effective value as text and where it came from.
type Origin struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source Source `json:"source"`
	// Detail names the file, variable or flag.
	Detail string `json:"detail,omitempty"`
}

// FlagValue is a setting given on the command line.
type FlagValue struct {
	Key, Value string
	Flag       string // as typed, "--model"
}

// Layers are where Load looks.
type Layers struct {
	// Path is the config file named by --config; "" for the default.
	Path string
	// Getenv reads the environment; ConfigDir is the user's config
	// directory (os.UserConfigDir), used when neither --config nor
	// $QUORUM_CONFIG names the file.
	Getenv    func(string) string
	ConfigDir func() (string, error)
	// Flags are the settings given on the command line.
	Flags []FlagValue
}

// EnvConfig names the environment variable that points at the config file.
const EnvConfig = "QUORUM_CONFIG"

// FilePath returns the config file to read and whether it must exist
// (named by --config or $QUORUM_CONFIG); "" when there is none.
func (l Layers) FilePath() (path string, required bool) {
	if l.Path != "" {
		return l.Path, true
	}
	if p := l.Getenv(EnvConfig); p != "" {
		return p, true
	}
	if l.ConfigDir == nil {
		return "", false
	}
	dir, err := l.ConfigDir()
	if err != nil || dir == "" {
		return "", false
	}
	return filepath.Join(dir, "quorum", "config.json"), false
}

// Loaded is what Load read.
type Loaded struct {
	Settings Settings
	// File is the config file consulted ("" when there is none); FileErr
	// is what is wrong with it: a *FileError, or Problems when it has
	// several mistakes; nil when it was read whole or is absent. A file
	// that cannot be read as a JSON object is not used at all
	// (FileUnusable); otherwise only the settings it gives wrong are left
	// out.
	File         string
	FileErr      error
	FileUnusable bool
	// Problems are every mistake of every layer, in order: the file's,
	// the environment's, the flags'. Each names its setting (ProblemKey),
	// so that a command can stop only for the settings it uses.
	Problems []error
	// Origins are every setting's value and source, in display order.
	Origins []Origin
}

// Problems are several mistakes, reported together, each on a line.
type Problems []error

func (p Problems) Error() string {
	lines := make([]string, len(p))
	for i, err := range p {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

func (p Problems) Unwrap() []error { return p }

// join is nil, the one error, or Problems.
func join(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return Problems(errs)
}

// ProblemKey is the setting a problem of Load is about; "" when it is the
// config file's as a whole (it cannot be read, is not JSON, or names an
// unknown setting), which concerns every setting.
func ProblemKey(err error) string {
	var fe *FileError
	var ee *EnvError
	var fl *FlagError
	switch {
	case errors.As(err, &fe):
		return fe.Key
	case errors.As(err, &ee):
		return ee.Key
	case errors.As(err, &fl):
		return fl.Key
	}
	return ""
}

// Load reads the layers into Settings. It always returns a *Loaded: a
// value that a layer gives wrong is left out (the layers below it, or the
// default, stand), and every mistake is in Problems; the error is nil, the
// one problem, or Problems. A problem is a *FileError for the file, an
// *EnvError for a variable, a *FlagError for a flag.
func Load(l Layers) (*Loaded, error) {
	out := &Loaded{}
	values := make(map[string]Origin, len(Keys))
	for _, k := range Keys {
		values[k.Name] = Origin{Key: k.Name, Value: k.Default, Source: SourceDefault}
	}
	path, required := l.FilePath()
	out.File = path
	if path != "" {
		file, problems, fatal := readFile(path, required)
		if fatal != nil {
			problems = []error{unusable(fatal)}
			out.FileUnusable = true
		}
		out.FileErr = join(problems)
		out.Problems = append(out.Problems, problems...)
		for _, e := range file {
			values[e.key] = Origin{Key: e.key, Value: e.value, Source: SourceFile, Detail: path}
		}
	}
	for _, k := range Keys {
		v := l.Getenv(k.Env)
		if v == "" {
			continue
		}
		if k.Name == "no-color" {
			v = "true" // NO_COLOR: any value means yes (no-color.org)
		}
		if err := k.Check(v); err != nil {
			out.Problems = append(out.Problems, &EnvError{Var: k.Env, Key: k.Name, Value: v, Err: err})
			continue
		}
		values[k.Name] = Origin{Key: k.Name, Value: v, Source: SourceEnv, Detail: k.Env}
	}
	for _, f := range l.Flags {
		k, ok := Lookup(f.Key)
		if !ok {
			panic("config: a flag sets the unknown setting " + f.Key) // a programming error
		}
		if err := k.Check(f.Value); err != nil {
			out.Problems = append(out.Problems, &FlagError{Flag: f.Flag, Key: k.Name, Value: f.Value, Err: err})
			continue
		}
		values[k.Name] = Origin{Key: k.Name, Value: f.Value, Source: SourceFlag, Detail: f.Flag}
	}
	for _, k := range Keys {
		o := values[k.Name]
		k.set(&out.Settings, o.Value)
		out.Origins = append(out.Origins, o)
	}
	return out, join(out.Problems)
}

// Origin returns where the setting called key came from.
func (l *Loaded) Origin(key string) Origin {
	for _, o := range l.Origins {
		if o.Key == key {
			return o
		}
	}
	return Origin{Key: key}
}

// EnvError is an environment variable with a value its setting cannot take.
type EnvError struct {
	Var, Key, Value string
	Err             error
}

func (e *EnvError) Error() string {
	return fmt.Sprintf("the environment variable %s=%q %v", e.Var, e.Value, e.Err)
}

func (e *EnvError) Unwrap() error { return e.Err }

// FlagError is a flag with a value its setting cannot take: a mistake on
// the command line.
type FlagError struct {
	Flag, Key, Value string
	Err              error
}

func (e *FlagError) Error() string {
	return fmt.Sprintf("invalid argument %q for %s: %v", e.Value, e.Flag, e.Err)
}

func (e *FlagError) Unwrap() error { return e.Err }
