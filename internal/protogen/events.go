package main

import (
	"fmt"
	"sort"
)

// eventType is one session event type of session-events.schema.json.
type eventType struct {
	Name        string // "assistant.message_delta"
	Description string
	Stability   string
	Data        *schema
	DataType    string // Go type of its data
	Ephemeral   bool   // the schema fixes ephemeral: true
}

// readEvents lists the event types: the variants of the SessionEvent
// union, each an object whose "type" is a constant and whose "data" is the
// payload.
func readEvents(t *types, root *schema) ([]*eventType, error) {
	if root.Ref == "" {
		return nil, fmt.Errorf("events schema: want a $ref to the SessionEvent union")
	}
	union := t.resolve(root)
	var out []*eventType
	for _, v := range union.AnyOf {
		def := t.resolve(v)
		var e eventType
		e.Description = def.Description
		e.Stability = def.Stability
		for _, p := range def.Properties {
			switch p.Name {
			case "type":
				name, ok := p.Schema.Const.(string)
				if !ok {
					return nil, fmt.Errorf("event %s: type is not a string constant", v.Ref)
				}
				e.Name = name
			case "data":
				e.Data = p.Schema
			case "ephemeral":
				e.Ephemeral = p.Schema.Const == true
			}
		}
		if e.Name == "" || e.Data == nil {
			return nil, fmt.Errorf("event %s: no type constant or no data", v.Ref)
		}
		// The event's own description is "Session event \"x\". What it
		// is": the data's is the part worth a comment.
		if e.Data.Description != "" {
			e.Description = e.Data.Description
		}
		g, err := t.goType(e.Data, exported(e.Name)+"Data")
		if err != nil {
			return nil, fmt.Errorf("event %s data: %w", e.Name, err)
		}
		e.DataType = g
		out = append(out, &e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			return nil, fmt.Errorf("event type %s is defined twice", out[i].Name)
		}
	}
	return out, nil
}

// emitEvents writes the event type names, the table from a name to a new
// value of its data type, and which types are ephemeral.
func emitEvents(t *types, events []*eventType) *file {
	f := newFile("session-events.schema.json")
	f.p("// Session event types of the schema, by name.")
	f.p("const (")
	for _, e := range events {
		f.comment(fmt.Sprintf("%s is %q: %s", eventConst(e), e.Name, e.Description) + stability(e.Stability))
		f.p("%s = %q", eventConst(e), e.Name)
	}
	f.p(")")
	f.p("")
	var all, eph []string
	for _, e := range events {
		all = append(all, eventConst(e))
		if e.Ephemeral {
			eph = append(eph, eventConst(e))
		}
	}
	emitList(f, "EventTypes", "EventTypes lists every event type of the schema, sorted.", all)
	f.comment("newEventData returns a new zero value of the data type of an event type, as a pointer for structs; nil for a type the schema does not know.")
	f.p("func newEventData(eventType string) any {")
	f.p("switch eventType {")
	for _, e := range events {
		f.p("case %s:", eventConst(e))
		f.p("return new(%s)", e.DataType)
	}
	f.p("}")
	f.p("return nil")
	f.p("}")
	f.p("")
	emitMembership(f, "IsEphemeral", "eventType", "IsEphemeral says whether the schema marks every event of a type ephemeral: sent live, not kept in the session's history.", eph)
	return f
}

func eventConst(e *eventType) string { return "Event" + exported(e.Name) }

// eventEnvelopes names the definitions of the SessionEvent union and its
// variants: the envelopes that protocol.Event stands for.
func eventEnvelopes(t *types, root *schema) map[string]bool {
	out := map[string]bool{}
	if root.Ref == "" {
		return out
	}
	out[root.refName()] = true
	for _, v := range t.resolve(root).AnyOf {
		if v.Ref != "" {
			out[v.refName()] = true
		}
	}
	return out
}
