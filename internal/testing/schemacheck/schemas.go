// Package schemacheck is test support, not on the production path: it checks
// Copilot protocol traffic against the JSON schemas the pinned Copilot CLI
// ships (api.schema.json for methods, session-events.schema.json for events),
// so that the simulator cannot drift from the real CLI and the client cannot
// send what the CLI would refuse.
//
// [Load] compiles the schemas of one directory; [Default] finds the pinned
// CLI's (installed by .ci/install-copilot.sh) once per test binary. [Tap]
// wraps a connection and checks every frame that crosses it, in both
// directions.
//
// Methods the CLI serves although its schemas omit them (session.create and
// the other older methods PROTOCOL.md lists) are not checked here; they are
// counted, so a test can tell how much of the traffic was checked.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrNotInSchema says the schemas do not describe a method or event type.
var ErrNotInSchema = errors.New("schemacheck: not in the CLI's schemas")

const (
	apiFile    = "api.schema.json"
	eventsFile = "session-events.schema.json"
)

// Schemas checks messages against one CLI version's schemas. Each method's
// and event's schema is compiled on first use: compiling all 619 methods and
// 163 events up front would cost every test binary seconds.
type Schemas struct {
	dir      string
	compiler *jsonschema.Compiler

	// methods maps a method name to the JSON pointers of its params and
	// result schemas inside api.schema.json ("" when the schema has none).
	methods map[string]methodLocation
	// events maps an event type to its definition in the events schema.
	events map[string]string

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

type methodLocation struct {
	params, result string
	// fromServer is true for the requests the CLI sends to its client.
	fromServer bool
}

// Load reads the two schema files in dir.
func Load(dir string) (*Schemas, error) {
	api, err := readJSON(filepath.Join(dir, apiFile))
	if err != nil {
		return nil, err
	}
	events, err := readJSON(filepath.Join(dir, eventsFile))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	// Formats are asserted: a date-time sent as a number, or an id that is
	// not a UUID, is exactly the drift these checks exist to catch.
	c.AssertFormat()
	c.UseRegexpEngine(ecmaRegexp)
	if err := c.AddResource(resourceURL(dir, apiFile), api); err != nil {
		return nil, fmt.Errorf("schemacheck: %s: %w", apiFile, err)
	}
	if err := c.AddResource(resourceURL(dir, eventsFile), events); err != nil {
		return nil, fmt.Errorf("schemacheck: %s: %w", eventsFile, err)
	}
	s := &Schemas{
		dir:      dir,
		compiler: c,
		methods:  map[string]methodLocation{},
		events:   map[string]string{},
		compiled: map[string]*jsonschema.Schema{},
	}
	root, ok := api.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schemacheck: %s is not an object", apiFile)
	}
	for _, tree := range []string{"server", "session", "clientSession", "clientGlobal"} {
		fromServer := tree == "clientSession" || tree == "clientGlobal"
		collectMethods(root[tree], "/"+tree, fromServer, s.methods)
	}
	if err := collectEvents(events, s.events); err != nil {
		return nil, err
	}
	return s, nil
}

// Methods returns how many methods the schemas describe.
func (s *Schemas) Methods() int { return len(s.methods) }

// EventTypes returns how many event types the schemas describe.
func (s *Schemas) EventTypes() int { return len(s.events) }

// FromServer reports whether method is a request the CLI sends to its
// client, and whether the schemas know the method at all.
func (s *Schemas) FromServer(method string) (fromServer, known bool) {
	loc, ok := s.methods[method]
	return loc.fromServer, ok
}

// Params checks a method's params. A method the schemas describe without
// params accepts none, null or {}.
func (s *Schemas) Params(method string, params json.RawMessage) error {
	loc, ok := s.methods[method]
	if !ok {
		return fmt.Errorf("%w: method %q", ErrNotInSchema, method)
	}
	if loc.params == "" {
		if isEmpty(params) {
			return nil
		}
		return fmt.Errorf("%s takes no params, got %s", method, clip(params))
	}
	return s.check(apiFile, loc.params, orNull(params), method+" params")
}

// Result checks a method's result.
func (s *Schemas) Result(method string, result json.RawMessage) error {
	loc, ok := s.methods[method]
	if !ok {
		return fmt.Errorf("%w: method %q", ErrNotInSchema, method)
	}
	if loc.result == "" {
		return nil
	}
	return s.check(apiFile, loc.result, orNull(result), method+" result")
}

// Event checks one session event: the `event` object of a session.event
// notification, envelope and data.
func (s *Schemas) Event(event json.RawMessage) error {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(event, &head); err != nil {
		return fmt.Errorf("event is not a JSON object: %w", err)
	}
	def, ok := s.events[head.Type]
	if !ok {
		return fmt.Errorf("%w: event type %q", ErrNotInSchema, head.Type)
	}
	return s.check(eventsFile, "/definitions/"+def, event, "event "+head.Type)
}

func (s *Schemas) check(file, pointer string, doc json.RawMessage, what string) error {
	sch, err := s.schema(file, pointer)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("%s: not JSON: %w", what, err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s %s: %w", what, clip(doc), err)
	}
	return nil
}

func (s *Schemas) schema(file, pointer string) (*jsonschema.Schema, error) {
	loc := resourceURL(s.dir, file) + "#" + pointer
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[loc]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("schemacheck: compile %s: %w", loc, err)
	}
	s.compiled[loc] = sch
	return sch, nil
}

// collectMethods walks a tree of namespaces down to the nodes that carry
// rpcMethod, recording where each method's params and result schemas are.
func collectMethods(node any, pointer string, fromServer bool, into map[string]methodLocation) {
	obj, ok := node.(map[string]any)
	if !ok {
		return
	}
	if name, ok := obj["rpcMethod"].(string); ok {
		loc := methodLocation{fromServer: fromServer}
		if obj["params"] != nil {
			loc.params = pointer + "/params"
		}
		if obj["result"] != nil {
			loc.result = pointer + "/result"
		}
		into[name] = loc
		return
	}
	for key, child := range obj {
		collectMethods(child, pointer+"/"+escapePointer(key), fromServer, into)
	}
}

// collectEvents maps each event type to its definition, reading the
// `type` const of every variant of SessionEvent.
func collectEvents(doc any, into map[string]string) error {
	defs, _ := doc.(map[string]any)["definitions"].(map[string]any)
	if defs == nil {
		return fmt.Errorf("schemacheck: %s has no definitions", eventsFile)
	}
	for name, def := range defs {
		props, _ := def.(map[string]any)["properties"].(map[string]any)
		typ, _ := props["type"].(map[string]any)
		if c, ok := typ["const"].(string); ok && props["data"] != nil {
			into[c] = name
		}
	}
	if len(into) == 0 {
		return fmt.Errorf("schemacheck: %s defines no event types", eventsFile)
	}
	return nil
}

func readJSON(path string) (any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("schemacheck: %w (install the pinned Copilot CLI with: bash .ci/install-copilot.sh)", err)
	}
	defer f.Close()
	v, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("schemacheck: %s: %w", path, err)
	}
	return v, nil
}

func resourceURL(dir, file string) string {
	return "file://" + filepath.ToSlash(filepath.Join(dir, file))
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(key string) string {
	var b bytes.Buffer
	for _, r := range key {
		switch r {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isEmpty(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null" || string(t) == "{}" || string(t) == "[]"
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// clip keeps error messages readable when a message is large.
func clip(raw json.RawMessage) string {
	const max = 300
	if len(raw) <= max {
		return string(raw)
	}
	return string(raw[:max]) + "…"
}
