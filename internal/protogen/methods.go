package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// method is one JSON-RPC method of api.schema.json.
type method struct {
	Name        string   // "session.model.switchTo"
	Path        []string // where it stands in its tree: ["model", "switchTo"]
	Tree        string   // server, session, clientSession or clientGlobal
	Description string
	Stability   string
	Visibility  string
	Params      *schema // nil: takes no params
	Result      *schema // nil: answers null
	Notify      bool    // a notification: no answer

	// Filled in by mapTypes.
	ParamsType, ResultType string
	// ParamsSession: the params struct has a sessionId field the session's
	// RPC fills in.
	ParamsSession bool
	// ParamsOnlySession: sessionId is its only field, so callers pass none.
	ParamsOnlySession bool
}

// trees of api.schema.json, in the order they are written: the first two
// are calls the client makes, the other two requests the CLI makes.
var trees = []string{"server", "session", "clientSession", "clientGlobal"}

// readMethods collects every method of api.schema.json, sorted by name.
func readMethods(root map[string]json.RawMessage) ([]*method, error) {
	var out []*method
	for _, tree := range trees {
		raw, ok := root[tree]
		if !ok {
			return nil, fmt.Errorf("api schema has no %q tree", tree)
		}
		if err := collect(raw, tree, nil, &out); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			return nil, fmt.Errorf("method %s is defined twice", out[i].Name)
		}
	}
	return out, nil
}

func collect(raw json.RawMessage, tree string, path []string, out *[]*method) error {
	var node map[string]json.RawMessage
	if err := json.Unmarshal(raw, &node); err != nil {
		return nil // a leaf that is not a method (a description string)
	}
	if _, ok := node["rpcMethod"]; ok {
		var m struct {
			RPCMethod    string          `json:"rpcMethod"`
			Description  string          `json:"description"`
			Stability    string          `json:"stability"`
			Visibility   string          `json:"visibility"`
			Params       json.RawMessage `json:"params"`
			Result       json.RawMessage `json:"result"`
			Notification bool            `json:"notification"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(path, "."), err)
		}
		me := &method{Name: m.RPCMethod, Path: append([]string(nil), path...), Tree: tree,
			Description: m.Description, Stability: m.Stability, Visibility: m.Visibility, Notify: m.Notification}
		var err error
		if me.Params, err = optionalSchema(m.Params); err != nil {
			return fmt.Errorf("%s params: %w", me.Name, err)
		}
		if me.Result, err = optionalSchema(m.Result); err != nil {
			return fmt.Errorf("%s result: %w", me.Name, err)
		}
		*out = append(*out, me)
		return nil
	}
	for _, k := range sortedKeys(node) {
		if err := collect(node[k], tree, append(path, k), out); err != nil {
			return err
		}
	}
	return nil
}

// optionalSchema decodes a schema that may be null or `{"type":"null"}`.
func optionalSchema(raw json.RawMessage) (*schema, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s.isNull() {
		return nil, nil
	}
	return &s, nil
}

// mapTypes gives each method's params and result their Go types. Inline
// schemas are named after the method: "session.model.switchTo" takes
// SessionModelSwitchToParams.
func mapTypes(t *types, methods []*method) error {
	for _, m := range methods {
		base := exported(m.Name)
		if m.Params != nil {
			g, err := t.goType(m.Params, base+"Params")
			if err != nil {
				return fmt.Errorf("%s params: %w", m.Name, err)
			}
			m.ParamsType = g
			if nt := t.named[g]; nt != nil && nt.Kind == kindStruct {
				for _, f := range nt.Fields {
					if f.JSON == "sessionId" && f.Type == "string" {
						m.ParamsSession = true
					}
				}
				m.ParamsOnlySession = m.ParamsSession && len(nt.Fields) == 1
			}
		}
		if m.Result != nil {
			g, err := t.goType(m.Result, base+"Result")
			if err != nil {
				return fmt.Errorf("%s result: %w", m.Name, err)
			}
			m.ResultType = g
		}
	}
	return nil
}
