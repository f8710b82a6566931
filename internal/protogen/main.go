// Command protogen generates the Go package copilot/protocol from the JSON
// schemas the pinned Copilot CLI ships (api.schema.json for methods,
// session-events.schema.json for events). It is a development tool, not on
// the production path: `go generate ./copilot/protocol` runs it, and CI
// runs it again and fails on any difference, so the committed code is
// always what the pinned CLI's schemas say.
//
// The schemas are found in -schemas DIR, else in $COPILOT_SCHEMAS, else
// where .ci/install-copilot.sh leaves the pinned CLI's unpacked cache:
// $QUORUM_CACHE/xdg/copilot/pkg/linux-x64/VERSION/schemas (QUORUM_CACHE
// defaults to ~/.cache/quorum).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("protogen", flag.ContinueOnError)
	version := fs.String("version", "", "the pinned Copilot CLI version whose schemas to read (required)")
	dir := fs.String("schemas", "", "directory holding api.schema.json and session-events.schema.json")
	out := fs.String("out", ".", "directory of the generated package")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" {
		return errors.New("-version is required (the pinned CLI version, as in .ci/install-copilot.sh)")
	}
	schemas, err := findSchemas(*dir, *version)
	if err != nil {
		return err
	}
	files, err := generate(schemas, *version)
	if err != nil {
		return err
	}
	return writeFiles(*out, files)
}

// findSchemas returns the directory of the schemas to read.
func findSchemas(dir, version string) (string, error) {
	if dir == "" {
		dir = os.Getenv("COPILOT_SCHEMAS")
	}
	if dir == "" {
		cache := os.Getenv("QUORUM_CACHE")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			cache = filepath.Join(home, ".cache", "quorum")
		}
		dir = filepath.Join(cache, "xdg", "copilot", "pkg", "linux-x64", version, "schemas")
	}
	if _, err := os.Stat(filepath.Join(dir, "api.schema.json")); err != nil {
		return "", fmt.Errorf("no schemas of Copilot CLI %s in %s: run `bash .ci/install-copilot.sh` first (it installs the pinned CLI and unpacks them), or pass -schemas DIR", version, dir)
	}
	return dir, nil
}

// generate reads the two schema files and returns the generated files by
// name.
func generate(dir, version string) (map[string][]byte, error) {
	apiRaw, err := os.ReadFile(filepath.Join(dir, "api.schema.json"))
	if err != nil {
		return nil, err
	}
	eventsRaw, err := os.ReadFile(filepath.Join(dir, "session-events.schema.json"))
	if err != nil {
		return nil, err
	}
	var api map[string]json.RawMessage
	if err := json.Unmarshal(apiRaw, &api); err != nil {
		return nil, fmt.Errorf("api.schema.json: %w", err)
	}
	var events struct {
		schema
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(eventsRaw, &events); err != nil {
		return nil, fmt.Errorf("session-events.schema.json: %w", err)
	}
	var apiDefs map[string]json.RawMessage
	if err := json.Unmarshal(api["definitions"], &apiDefs); err != nil {
		return nil, fmt.Errorf("api.schema.json definitions: %w", err)
	}
	defs, err := mergeDefinitions(apiDefs, events.Definitions)
	if err != nil {
		return nil, err
	}
	methods, err := readMethods(api)
	if err != nil {
		return nil, err
	}
	roots := []*schema{&events.schema}
	for _, m := range methods {
		roots = append(roots, m.Params, m.Result)
	}
	t, err := newTypes(defs, roots)
	if err != nil {
		return nil, err
	}
	if err := mapTypes(t, methods); err != nil {
		return nil, err
	}
	evs, err := readEvents(t, &events.schema)
	if err != nil {
		return nil, err
	}
	// A definition reached only through a value the schema keeps opaque
	// (a tool result that is "string or object") is still worth its type:
	// callers build the object form with it. Event envelopes are not:
	// protocol.Event is the one envelope.
	envelopes := eventEnvelopes(t, &events.schema)
	for _, name := range sortedKeys(t.used) {
		if !envelopes[name] {
			if _, err := t.ref(name); err != nil {
				return nil, err
			}
		}
	}

	rpc := newFile("api.schema.json")
	if err := emitRPC(rpc, t, buildGroups("Server", methodsOf(methods, "server")), false); err != nil {
		return nil, err
	}
	if err := emitRPC(rpc, t, buildGroups("Session", methodsOf(methods, "session")), true); err != nil {
		return nil, err
	}
	handlers := newFile("api.schema.json")
	emitHandlers(handlers, t, methodsOf(methods, "clientSession", "clientGlobal"))

	out := map[string][]byte{}
	// Types last: the other files' mapping declares them.
	for name, f := range map[string]*file{
		"names_gen.go":    emitNames(methods, version),
		"rpc_gen.go":      rpc,
		"handlers_gen.go": handlers,
		"events_gen.go":   emitEvents(t, evs),
	} {
		if out[name], err = f.formatted(name); err != nil {
			return nil, err
		}
	}
	if out["types_gen.go"], err = emitTypes(t).formatted("types_gen.go"); err != nil {
		return nil, err
	}
	out["COVERAGE.md"] = emitCoverage(t, methods, evs, version)
	return out, nil
}

// mergeDefinitions puts the definitions of both files in one table. A name
// both files define must mean the same shape (descriptions may differ):
// one Go type serves both.
func mergeDefinitions(api, events map[string]json.RawMessage) (map[string]*schema, error) {
	defs := map[string]*schema{}
	add := func(name string, raw json.RawMessage) error {
		var s schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("definition %s: %w", name, err)
		}
		defs[name] = &s
		return nil
	}
	for name, raw := range api {
		if err := add(name, raw); err != nil {
			return nil, err
		}
	}
	for name, raw := range events {
		if prev, ok := api[name]; ok {
			if !sameShape(prev, raw) {
				return nil, fmt.Errorf("definition %s differs between the two schema files", name)
			}
			continue
		}
		if err := add(name, raw); err != nil {
			return nil, err
		}
	}
	return defs, nil
}

// sameShape compares two schemas without their prose.
func sameShape(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(stripProse(x), stripProse(y))
}

func stripProse(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			switch k {
			case "description", "title", "x-enumDescriptions", "stability", "visibility":
				continue
			}
			out[k] = stripProse(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = stripProse(x)
		}
		return out
	}
	return v
}

// writeFiles writes the generated files into dir and removes generated
// files the schemas no longer produce. A file whose content is unchanged
// is not rewritten.
func writeFiles(dir string, files map[string][]byte) error {
	old, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	if err != nil {
		return err
	}
	for _, p := range old {
		if _, keep := files[filepath.Base(p)]; !keep && strings.HasSuffix(p, "_gen.go") {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, b) {
			continue
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
