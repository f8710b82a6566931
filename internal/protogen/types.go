package main

import (
	"fmt"
	"strconv"
	"strings"
)

// rawJSON is the Go type of a value the schema leaves open (opaque JSON,
// a free-form object, a union of unlike kinds): it passes through as the
// CLI sent it.
const rawJSON = "json.RawMessage"

// typeKind says how a named type is written.
type typeKind int

const (
	kindStruct  typeKind = iota // type X struct{…}
	kindEnum                    // type X string, with a constant per value
	kindDefined                 // type X <underlying>
	kindAlias                   // type X = <underlying> (json.RawMessage keeps its methods)
)

// namedType is one Go type the generator writes.
type namedType struct {
	Name       string
	Doc        string
	Kind       typeKind
	Fields     []field     // kindStruct
	Values     []enumValue // kindEnum
	Underlying string      // kindDefined, kindAlias
}

type field struct {
	Name, JSON, Type, Doc string
	Required              bool
}

type enumValue struct {
	Name, Value, Doc string
}

// types maps schemas to Go types and collects the named ones. Definitions
// keep their names (exported); inline objects and enums are named after
// where they stand (the enclosing type and the property).
type types struct {
	defs  map[string]*schema
	named map[string]*namedType
	// defType is the Go type of each definition already mapped.
	defType map[string]string
	// reserved holds the Go names of the definitions, declaring those
	// being mapped now, taken every other name in use.
	reserved, declaring, taken map[string]bool
	// used is every definition the output refers to, directly or not.
	used map[string]bool
	// inline reuses the type of an inline schema seen before under the same
	// name hint with the same content, so one schema is one type.
	inline map[string]string
}

func newTypes(defs map[string]*schema, roots []*schema) (*types, error) {
	t := &types{
		defs:      defs,
		named:     map[string]*namedType{},
		defType:   map[string]string{},
		reserved:  map[string]bool{},
		declaring: map[string]bool{},
		taken:     map[string]bool{},
		inline:    map[string]string{},
	}
	// The name of every definition the output uses is reserved first, so an
	// inline type never takes a name a definition will want later. Unused
	// definitions reserve nothing: a method's inline params may be named as
	// an unused definition is.
	owner := map[string]string{}
	t.used = t.reachable(roots)
	for _, name := range sortedKeys(t.used) {
		g := exported(name)
		if prev, ok := owner[g]; ok {
			return nil, fmt.Errorf("definitions %s and %s both map to the Go name %s", prev, name, g)
		}
		owner[g] = name
		t.reserved[g] = true
	}
	return t, nil
}

// reachable returns the definitions that roots refer to, directly or not.
func (t *types) reachable(roots []*schema) map[string]bool {
	seen := map[string]bool{}
	var walk func(s *schema)
	walk = func(s *schema) {
		if s == nil {
			return
		}
		if s.Ref != "" {
			name := s.refName()
			if seen[name] {
				return
			}
			seen[name] = true
			walk(t.defs[name])
		}
		if d, ok := t.defs[s.Title]; ok && d != s && !seen[s.Title] && sameSchema(d, s) {
			seen[s.Title] = true
			walk(d)
		}
		for _, p := range s.Properties {
			walk(p.Schema)
		}
		walk(s.Items)
		walk(s.additional())
		walk(s.Not)
		for _, v := range s.AnyOf {
			walk(v)
		}
		for _, v := range s.OneOf {
			walk(v)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return seen
}

// claim takes hint as a type's name, or hint with the first free number
// after it. A definition's name is free only to that definition.
func (t *types) claim(hint string) string {
	free := func(n string) bool {
		return t.named[n] == nil && !t.taken[n] && (!t.reserved[n] || t.declaring[n])
	}
	name := hint
	for i := 2; !free(name); i++ {
		name = hint + strconv.Itoa(i)
	}
	t.taken[name] = true
	return name
}

// ref returns the Go type of definition name, mapping it on first use.
func (t *types) ref(name string) (string, error) {
	if g, ok := t.defType[name]; ok {
		return g, nil
	}
	s, ok := t.defs[name]
	if !ok {
		return "", fmt.Errorf("$ref to unknown definition %q", name)
	}
	g := exported(name)
	// Registered before the content is mapped: a definition may refer to
	// itself (through an optional field, an array or a map).
	t.defType[name] = g
	t.declaring[g] = true
	got, err := t.declare(s, g)
	delete(t.declaring, g)
	if err != nil {
		return "", fmt.Errorf("definition %s: %w", name, err)
	}
	t.defType[name] = got
	return got, nil
}

// declare writes s as the named type name and returns the Go type to use
// for it (name itself, or a pointer or slice spelled out when naming adds
// nothing).
func (t *types) declare(s *schema, name string) (string, error) {
	if s.Ref != "" {
		// A definition that is another's synonym.
		under, err := t.goType(s, name)
		if err != nil {
			return "", err
		}
		t.named[name] = &namedType{Name: name, Doc: s.Description, Kind: kindAlias, Underlying: under}
		return name, nil
	}
	under, err := t.goType(s, name)
	if err != nil {
		return "", err
	}
	if _, ok := t.named[under]; ok || under == name {
		return under, nil
	}
	if under == "*"+name {
		// A nullable definition mapped to a struct or enum of its own
		// name: used through a pointer, so null stays apart from empty.
		return under, nil
	}
	if strings.HasPrefix(under, "*") {
		// A nullable definition: the pointer is spelled where it is used.
		t.named[name] = &namedType{Name: name, Doc: s.Description, Kind: kindAlias, Underlying: under}
		return name, nil
	}
	kind := kindDefined
	if under == rawJSON {
		kind = kindAlias
	}
	t.named[name] = &namedType{Name: name, Doc: s.Description, Kind: kind, Underlying: under}
	return name, nil
}

// goType is the Go type of a value of schema s; hint names the type if s
// needs a named one (an object with properties, an enum).
func (t *types) goType(s *schema, hint string) (string, error) {
	if s == nil {
		return rawJSON, nil
	}
	if s.Ref != "" {
		return t.ref(s.refName())
	}
	// An inline schema titled after a definition of the same shape is
	// that definition, written out again.
	if d, ok := t.defs[s.Title]; ok && d != s && sameSchema(d, s) {
		return t.ref(s.Title)
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		return t.union(s, hint)
	}
	nullable := s.Type.has("null")
	var kinds []string
	for _, k := range s.Type {
		if k != "null" {
			kinds = append(kinds, k)
		}
	}
	var base string
	var err error
	switch {
	case len(kinds) > 1:
		base = rawJSON
	case len(kinds) == 0:
		switch {
		case len(s.Enum) > 0:
			base, err = t.enum(s, hint)
		case s.Const != nil:
			base = constType(s.Const)
		case len(s.Properties) > 0:
			base, err = t.object(s, hint)
		case nullable:
			return rawJSON, nil
		default:
			base = rawJSON
		}
	default:
		base, err = t.primitive(kinds[0], s, hint)
	}
	if err != nil {
		return "", err
	}
	if nullable {
		return pointer(base), nil
	}
	return base, nil
}

func (t *types) primitive(kind string, s *schema, hint string) (string, error) {
	switch kind {
	case "string":
		if len(s.Enum) > 0 {
			return t.enum(s, hint)
		}
		return "string", nil
	case "integer":
		return "int64", nil
	case "number":
		return "float64", nil
	case "boolean":
		return "bool", nil
	case "array":
		if s.Items == nil {
			return "[]" + rawJSON, nil
		}
		item, err := t.goType(s.Items, hint+"Item")
		if err != nil {
			return "", err
		}
		return "[]" + item, nil
	case "object":
		return t.object(s, hint)
	}
	return rawJSON, nil
}

// constType is the Go type of a value fixed by "const".
func constType(v any) string {
	switch v.(type) {
	case bool:
		return "bool"
	case float64:
		return "float64"
	case string:
		return "string"
	}
	return rawJSON
}

// pointer makes a Go type nullable; slices, maps and raw JSON already are.
func pointer(g string) string {
	if strings.HasPrefix(g, "*") || strings.HasPrefix(g, "[]") || strings.HasPrefix(g, "map[") || g == rawJSON {
		return g
	}
	return "*" + g
}
