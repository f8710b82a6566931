package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// FileError is a config file that cannot be used: unreadable, not JSON,
// or a setting it cannot take. Line and Column (from 1) point at the
// mistake when there is one to point at.
type FileError struct {
	Path         string
	Line, Column int
	// Key is the setting whose value is wrong; "" when the mistake is the
	// file's as a whole (unreadable, not JSON, an unknown setting).
	Key string
	Msg string
	Err error // the underlying error, if any
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("the config file %s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("the config file %s: %s", e.Path, e.Msg)
}

func (e *FileError) Unwrap() error { return e.Err }

// entry is one setting of the file, its value as text.
type entry struct {
	key, value string
	// raw is the value as written; keyAt and at are the offsets of its
	// name and its value in the file.
	raw       json.RawMessage
	keyAt, at int
}

// readFile reads the config file: a JSON object whose names are Keys'
// names. An absent file is no error unless required. A file that cannot
// be read as a JSON object is one error (fatal); otherwise every setting
// it cannot take is a problem of its own, all of them reported, and the
// settings it can take are kept.
func readFile(path string, required bool) (entries []entry, problems []error, fatal error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, &FileError{Path: path, Msg: "cannot be read: " + unwrapPathError(err), Err: err}
	}
	members, err := parseObject(path, b)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]int{}
	for _, e := range members {
		failAt := func(at int, key, format string, args ...any) {
			line, col := position(b, at)
			problems = append(problems, &FileError{Path: path, Line: line, Column: col, Key: key, Msg: e.key + ": " + fmt.Sprintf(format, args...)})
		}
		k, ok := Lookup(e.key)
		if !ok {
			msg := fmt.Sprintf("unknown setting (known: %s)", strings.Join(Names(), ", "))
			if best := Closest(e.key); best != "" {
				msg = "unknown setting; did you mean " + best + "?"
			}
			failAt(e.keyAt, "", "%s", msg)
			continue
		}
		if at, dup := seen[e.key]; dup {
			line, _ := position(b, at)
			failAt(e.keyAt, e.key, "set twice (first on line %d); keep one", line)
			continue
		}
		seen[e.key] = e.keyAt
		v, err := k.text(e.raw)
		if err != nil {
			failAt(e.at, e.key, "%v", err)
			continue
		}
		if err := k.Check(v); err != nil {
			failAt(e.at, e.key, "%v (got %s)", err, string(e.raw))
			continue
		}
		e.value = v
		entries = append(entries, e)
	}
	return entries, problems, nil
}

// Closest is the setting name within two edits of name, or "": the
// did-you-mean of a mistyped setting, in the file and on the command line.
func Closest(name string) string {
	best, bestD := "", 3
	for _, n := range Names() {
		if d := Distance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b: the edits that
// make one the other. The command's did-you-mean uses it too, for
// commands and flags, so that one measure decides every suggestion.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// unusable adds to the error of a file that is not a JSON object what to
// do about it: quorum config set only changes a file it can read, and
// leaves a broken one as it is rather than lose what it holds.
func unusable(err error) error {
	var fe *FileError
	if errors.As(err, &fe) && fe.Key == "" && fe.Line > 0 {
		c := *fe
		c.Msg += "; fix it in an editor, or remove it (rm " + fe.Path + ") to start again from the defaults"
		return &c
	}
	return err
}

func unwrapPathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// parseObject reads b as one JSON object and returns its members in file
// order, each with where its name and its value start, so that a mistake
// can be shown at its line and column.
func parseObject(path string, b []byte) ([]entry, error) {
	// Unmarshal first: its syntax errors carry the offset in the whole
	// file, which the token walk below does not always give.
	var whole any
	if err := json.Unmarshal(b, &whole); err != nil {
		at, msg := len(b), strings.TrimPrefix(err.Error(), "json: ")
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at = int(se.Offset) - 1
			// At the end of the input the scanner reports a made-up space
			// (or "unexpected end"): the file stops short, rather than
			// its last character being wrong.
			if se.Offset >= int64(len(b)) && len(b) > 0 && !strings.Contains(msg, fmt.Sprintf("%q", b[len(b)-1])) {
				at, msg = len(b), "the JSON ends too soon (a missing } or \"?)"
			}
		}
		line, col := position(b, at)
		return nil, &FileError{Path: path, Line: line, Column: col, Msg: "not valid JSON: " + msg, Err: err}
	}
	if _, ok := whole.(map[string]any); !ok {
		line, col := position(b, skipSpace(b, 0))
		return nil, &FileError{Path: path, Line: line, Column: col, Msg: `must hold one JSON object, {"setting": value, …}`}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out []entry
	for dec.More() {
		keyAt := skipSpace(b, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // inside an object the decoder only yields string names
		at := skipSpace(b, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, entry{key: key, raw: raw, keyAt: keyAt, at: at})
	}
	return out, nil
}

// text is a file value as the setting's text: strings as they are,
// booleans and numbers as written, lists of strings joined.
func (k Key) text(raw json.RawMessage) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return fmt.Sprint(x), nil
	case json.Number:
		if k.kind == kindDuration {
			return "", fmt.Errorf(`must be a duration in quotes, such as "5m" (got %s)`, x)
		}
		return x.String(), nil
	case []any:
		if k.kind != kindList && k.kind != kindWords {
			return "", fmt.Errorf("takes one value, not a list")
		}
		parts := make([]string, 0, len(x))
		for _, p := range x {
			s, ok := p.(string)
			if !ok {
				return "", fmt.Errorf("must be a list of strings")
			}
			parts = append(parts, s)
		}
		sep := ","
		if k.kind == kindWords {
			sep = " "
		}
		return strings.Join(parts, sep), nil
	case nil:
		return "", fmt.Errorf("is null; give a value, or remove the line (quorum config unset %s)", k.Name)
	}
	return "", fmt.Errorf("has a value of the wrong type (an object)")
}

// json is the value v of k as the file writes it: lists as lists of
// strings, booleans and numbers bare, the rest as strings.
func (k Key) json(v string) json.RawMessage {
	var x any = v
	switch k.kind {
	case kindList:
		x = splitList(v)
	case kindWords:
		x = strings.Fields(v)
	case kindBool:
		x = parseBool(v)
	case kindInt, kindCount, kindAmount:
		x = json.Number(v)
	}
	b, _ := json.Marshal(x)
	return b
}

// skipSpace skips white space, and the separators between an object's
// members (a comma before a name, a colon after it).
func skipSpace(b []byte, i int) int {
	for i < len(b) && strings.IndexByte(" \t\n\r,:", b[i]) >= 0 {
		i++
	}
	return i
}

// position is the line and column (from 1, counting characters) of the
// byte at offset at.
func position(b []byte, at int) (line, col int) {
	at = min(max(at, 0), len(b))
	before := b[:at]
	line = bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[start:]) + 1
}

// Set writes key = value into the config file at path, creating it (and
// its directory) if needed and keeping its other settings. The value is
// checked first; a file that is not a JSON object is left alone, with a
// *FileError saying where it is broken. Other settings' values are kept as
// written, even invalid ones, so that set can repair a file one setting
// at a time.
func Set(path, key, value string) error {
	k, ok := Lookup(key)
	if !ok {
		return fmt.Errorf("unknown setting %q (known: %s)", key, strings.Join(Names(), ", "))
	}
	if value == "" {
		return fmt.Errorf("no value for %s; to go back to the default, use quorum config unset %s", key, key)
	}
	if err := k.Check(value); err != nil {
		return fmt.Errorf("%s=%q: %v", key, value, err)
	}
	return rewrite(path, func(m map[string]json.RawMessage) { m[key] = k.json(value) })
}

// Unset removes key from the config file at path, if it is there.
func Unset(path, key string) error {
	if _, ok := Lookup(key); !ok {
		return fmt.Errorf("unknown setting %q (known: %s)", key, strings.Join(Names(), ", "))
	}
	return rewrite(path, func(m map[string]json.RawMessage) { delete(m, key) })
}

// rewrite applies change to the file's members and writes the file back
// atomically (a temporary file renamed over it), in Keys' order.
func rewrite(path string, change func(map[string]json.RawMessage)) error {
	if path == "" {
		return errors.New("no config file: there is no user config directory; name a file with --config or $" + EnvConfig)
	}
	mode := fs.FileMode(0o644)
	members := map[string]json.RawMessage{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return &FileError{Path: path, Msg: "cannot be read: " + unwrapPathError(err), Err: err}
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
		entries, err := parseObject(path, b)
		if err != nil {
			return unusable(err)
		}
		for _, e := range entries {
			members[e.key] = e.raw
		}
	}
	change(members)
	var buf bytes.Buffer
	buf.WriteString("{")
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	order := func(n string) int {
		if i := slices.Index(Names(), n); i >= 0 {
			return i
		}
		return len(Keys) // unknown names last, alphabetically
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := order(a) - order(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for i, n := range names {
		if i > 0 {
			buf.WriteString(",")
		}
		name, _ := json.Marshal(n)
		var val bytes.Buffer
		if err := json.Compact(&val, members[n]); err != nil {
			val.Write(members[n])
		}
		fmt.Fprintf(&buf, "\n  %s: %s", name, val.Bytes())
	}
	if len(names) > 0 {
		buf.WriteString("\n")
	}
	buf.WriteString("}\n")

	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".config-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
