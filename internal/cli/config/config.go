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
	"fmt"
	"path/filepath"
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
	CLIPath      string
	CLIArgs      []string
	Transport    string // "stdio" or "tcp"
	Output       string // "text", "markdown" or "json"
	NoColor      bool
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
	// is why it could not be used (a *FileError), nil when it was read or
	// is absent.
	File    string
	FileErr error
	// Origins are every setting's value and source, in display order.
	Origins []Origin
}

// Load reads the layers into Settings. It always returns a *Loaded: when a
// layer is wrong it holds the other layers' values (for `quorum config`
// and `quorum version`, which report the problem and go on), and the error
// says what is wrong: a *FileError for the file, an *EnvError for a
// variable, a *FlagError for a flag.
func Load(l Layers) (*Loaded, error) {
	out := &Loaded{}
	values := make(map[string]Origin, len(Keys))
	for _, k := range Keys {
		values[k.Name] = Origin{Key: k.Name, Value: k.Default, Source: SourceDefault}
	}
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	path, required := l.FilePath()
	out.File = path
	if path != "" {
		file, err := readFile(path, required)
		if err != nil {
			out.FileErr = err
			keep(err)
		}
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
			keep(&EnvError{Var: k.Env, Value: v, Err: err})
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
			keep(&FlagError{Flag: f.Flag, Value: f.Value, Err: err})
			continue
		}
		values[k.Name] = Origin{Key: k.Name, Value: f.Value, Source: SourceFlag, Detail: f.Flag}
	}
	for _, k := range Keys {
		o := values[k.Name]
		k.set(&out.Settings, o.Value)
		out.Origins = append(out.Origins, o)
	}
	return out, first
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
	Var, Value string
	Err        error
}

func (e *EnvError) Error() string {
	return fmt.Sprintf("the environment variable %s=%q %v", e.Var, e.Value, e.Err)
}

func (e *EnvError) Unwrap() error { return e.Err }

// FlagError is a flag with a value its setting cannot take: a mistake on
// the command line.
type FlagError struct {
	Flag, Value string
	Err         error
}

func (e *FlagError) Error() string {
	return fmt.Sprintf("invalid argument %q for %s: %v", e.Value, e.Flag, e.Err)
}

func (e *FlagError) Unwrap() error { return e.Err }
