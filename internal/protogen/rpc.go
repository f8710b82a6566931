package main

import (
	"fmt"
	"strings"
)

// group is one level of a method tree: "session.plugins" holds the methods
// directly under it and the groups below ("marketplaces").
type group struct {
	Type     string // Go type: SessionPluginsRPC
	Path     []string
	Methods  []*method
	Children map[string]*group
}

// buildGroups arranges the methods of one tree by their paths.
func buildGroups(prefix string, methods []*method) *group {
	root := &group{Type: prefix + "RPC", Children: map[string]*group{}}
	for _, m := range methods {
		g := root
		for _, part := range m.Path[:len(m.Path)-1] {
			c, ok := g.Children[part]
			if !ok {
				path := append(append([]string(nil), g.Path...), part)
				c = &group{Type: prefix + exported(strings.Join(path, ".")) + "RPC", Path: path, Children: map[string]*group{}}
				g.Children[part] = c
			}
			g = c
		}
		g.Methods = append(g.Methods, m)
	}
	return root
}

// emitRPC writes the typed calls of one tree: a struct per group, whose
// fields are its sub-groups and whose methods are its calls.
func emitRPC(f *file, t *types, root *group, session bool) error {
	var groups []*group
	var walk func(g *group)
	walk = func(g *group) {
		groups = append(groups, g)
		for _, k := range sortedKeys(g.Children) {
			walk(g.Children[k])
		}
	}
	walk(root)
	for _, g := range groups {
		members := map[string]bool{}
		f.p("")
		scope := "connection-wide methods"
		if session {
			scope = "methods of one session"
		}
		if len(g.Path) == 0 {
			f.comment(fmt.Sprintf("%s makes the %s of the CLI's schema, typed; its fields group them as the schema does.", g.Type, scope))
		} else {
			f.comment(fmt.Sprintf("%s makes the %q %s.", g.Type, strings.Join(g.Path, ".")+".*", scope))
		}
		f.p("type %s struct {", g.Type)
		f.p("c *rpcConn")
		for _, k := range sortedKeys(g.Children) {
			name := exported(k)
			members[name] = true
			f.p("%s %s", name, g.Children[k].Type)
		}
		f.p("}")
		for _, m := range g.Methods {
			name := exported(m.Path[len(m.Path)-1])
			if members[name] {
				return fmt.Errorf("%s: method %s clashes with a group of the same name", g.Type, name)
			}
			members[name] = true
			if err := emitCall(f, t, g.Type, name, m, session); err != nil {
				return err
			}
		}
	}
	// The constructor fills every group with the one connection.
	f.p("")
	var lit func(g *group) string
	lit = func(g *group) string {
		var b strings.Builder
		b.WriteString(g.Type + "{c: c")
		for _, k := range sortedKeys(g.Children) {
			b.WriteString(", " + exported(k) + ": " + lit(g.Children[k]))
		}
		b.WriteString("}")
		return b.String()
	}
	if session {
		f.comment(fmt.Sprintf("New%s returns the typed calls of session sessionID, made through caller.", root.Type))
		f.p("func New%s(caller Caller, sessionID string) *%s {", root.Type, root.Type)
		f.p("c := &rpcConn{caller: caller, sessionID: sessionID}")
	} else {
		f.comment(fmt.Sprintf("New%s returns the typed connection-wide calls, made through caller.", root.Type))
		f.p("func New%s(caller Caller) *%s {", root.Type, root.Type)
		f.p("c := &rpcConn{caller: caller}")
	}
	f.p("return &%s", lit(root))
	f.p("}")
	return nil
}

// emitCall writes one typed call. A session's calls fill in sessionId;
// one whose params hold nothing else takes no params argument.
func emitCall(f *file, t *types, recv, name string, m *method, session bool) error {
	var args, prep string
	params := "nil"
	switch {
	case m.ParamsType == "":
	case session && m.ParamsOnlySession:
		prep = fmt.Sprintf("params := %s{SessionID: g.c.sessionID}", m.ParamsType)
		params = "params"
	case session && m.ParamsSession:
		args = ", params " + m.ParamsType
		prep = "params.SessionID = g.c.sessionID"
		params = "params"
	default:
		args = ", params " + m.ParamsType
		params = "params"
	}
	f.p("")
	doc := fmt.Sprintf("%s calls %q: %s", name, m.Name, m.Description)
	f.comment(doc + stability(m.Stability))
	if m.ResultType == "" {
		f.p("func (g %s) %s(ctx context.Context%s) error {", recv, name, args)
		if prep != "" {
			f.p("%s", prep)
		}
		f.p("return g.c.call(ctx, %s, %s, nil)", methodConst(m), params)
		f.p("}")
		return nil
	}
	rt, byPointer := resultSig(m.ResultType, t)
	f.p("func (g %s) %s(ctx context.Context%s) (%s, error) {", recv, name, args, rt)
	if prep != "" {
		f.p("%s", prep)
	}
	f.p("var result %s", m.ResultType)
	if byPointer {
		f.p("if err := g.c.call(ctx, %s, %s, &result); err != nil {", methodConst(m), params)
		f.p("return nil, err")
		f.p("}")
		f.p("return &result, nil")
	} else {
		f.p("err := g.c.call(ctx, %s, %s, &result)", methodConst(m), params)
		f.p("return result, err")
	}
	f.p("}")
	return nil
}

// emitHandlers writes ClientHandlers, a typed handler per request and
// notification the CLI may send its client, and the dispatch to them.
func emitHandlers(f *file, t *types, methods []*method) {
	f.p("")
	f.comment("ClientHandlers answers the requests, and receives the notifications, that the CLI sends to its client (the clientSession and clientGlobal trees of the schema). A nil handler leaves its method unhandled: Handle then returns ErrNoHandler, and the caller answers with a decline or a JSON-RPC error.")
	f.p("type ClientHandlers struct {")
	for _, m := range methods {
		kind := "answers the request"
		if m.Notify {
			kind = "receives the notification"
		}
		f.comment(fmt.Sprintf("%s %s %q (%s): %s", exported(m.Name), kind, m.Name, treeNote(m), m.Description) + stability(m.Stability))
		f.p("%s %s", exported(m.Name), handlerSig(t, m))
	}
	f.p("}")
	f.p("")
	f.comment("Handle decodes params and calls the handler for method. It returns ErrNoHandler when that handler is nil, ErrUnknownMethod when method is not one the CLI sends its client, and an error wrapping ErrInvalidParams when params do not decode. A notification's result is nil.")
	f.p("func (h *ClientHandlers) Handle(ctx context.Context, method string, params json.RawMessage) (any, error) {")
	f.p("switch method {")
	for _, m := range methods {
		name := exported(m.Name)
		f.p("case %s:", methodConst(m))
		f.p("if h.%s == nil {", name)
		f.p("return nil, ErrNoHandler")
		f.p("}")
		call := "h." + name + "(ctx"
		if m.ParamsType != "" {
			f.p("var p %s", m.ParamsType)
			f.p("if err := decodeParams(method, params, &p); err != nil {")
			f.p("return nil, err")
			f.p("}")
			if byPointer := isStruct(t, m.ParamsType); byPointer {
				call += ", &p"
			} else {
				call += ", p"
			}
		}
		call += ")"
		switch {
		case m.Notify:
			f.p("%s", call)
			f.p("return nil, nil")
		case m.ResultType == "":
			f.p("return nil, %s", call)
		default:
			f.p("return %s", call)
		}
	}
	f.p("}")
	f.p("return nil, ErrUnknownMethod")
	f.p("}")
	f.p("")
	var all, notes []string
	for _, m := range methods {
		all = append(all, methodConst(m))
		if m.Notify {
			notes = append(notes, methodConst(m))
		}
	}
	emitList(f, "ClientMethods", "ClientMethods lists the methods the CLI may send its client, sorted.", all)
	emitMembership(f, "IsNotification", "method", "IsNotification says whether the CLI sends method, one of ClientMethods, without waiting for an answer.", notes)
}

func isStruct(t *types, g string) bool {
	nt := t.named[g]
	return nt != nil && nt.Kind == kindStruct
}

// handlerSig is the func type of a method's handler.
func handlerSig(t *types, m *method) string {
	args := "ctx context.Context"
	if m.ParamsType != "" {
		pt := m.ParamsType
		if isStruct(t, pt) {
			pt = "*" + pt
		}
		args += ", params " + pt
	}
	switch {
	case m.Notify:
		return "func(" + args + ")"
	case m.ResultType == "":
		return "func(" + args + ") error"
	}
	rt, _ := resultSig(m.ResultType, t)
	return "func(" + args + ") (" + rt + ", error)"
}
