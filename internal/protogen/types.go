package main

import (
	"encoding/json"
	"fmt"
	"sort"
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

// object maps an object schema: a struct when it names properties, a map
// when it only describes its values, raw JSON when it is open.
func (t *types) object(s *schema, hint string) (string, error) {
	if s.OpaqueJSON {
		return rawJSON, nil
	}
	if len(s.Properties) == 0 {
		if a := s.additional(); a != nil {
			v, err := t.goType(a, hint+"Value")
			if err != nil {
				return "", err
			}
			return "map[string]" + v, nil
		}
		if string(s.AdditionalProperties) == "false" {
			return t.structOf(s, hint, nil)
		}
		return rawJSON, nil
	}
	return t.structOf(s, hint, []*schema{s})
}

// structOf declares a struct named after hint with the properties of every
// object in variants (one for a plain object; several for a union, where a
// property is required only if every variant requires it, and a property
// the variants type differently stays raw JSON).
func (t *types) structOf(s *schema, hint string, variants []*schema) (string, error) {
	key := hint + "\x00" + canonical(s)
	if g, ok := t.inline[key]; ok {
		return g, nil
	}
	name := t.claim(hint)
	t.inline[key] = name
	nt := &namedType{Name: name, Doc: s.Description, Kind: kindStruct}
	t.named[name] = nt
	index := map[string]int{}
	usedNames := map[string]bool{}
	for _, v := range variants {
		for _, p := range v.Properties {
			goName := exported(p.Name)
			typ, err := t.goType(p.Schema, name+goName)
			if err != nil {
				return "", fmt.Errorf("property %s: %w", p.Name, err)
			}
			req := v.required(p.Name)
			if i, ok := index[p.Name]; ok {
				f := &nt.Fields[i]
				if f.Type != typ {
					f.Type = rawJSON
				}
				f.Required = f.Required && req
				continue
			}
			for usedNames[goName] {
				goName += "_"
			}
			usedNames[goName] = true
			index[p.Name] = len(nt.Fields)
			nt.Fields = append(nt.Fields, field{Name: goName, JSON: p.Name, Type: typ, Doc: fieldDoc(p.Schema), Required: req})
		}
	}
	// A property some variant lacks is optional in the union.
	if len(variants) > 1 {
		for i := range nt.Fields {
			for _, v := range variants {
				if !hasProperty(v, nt.Fields[i].JSON) {
					nt.Fields[i].Required = false
				}
			}
		}
	}
	return name, nil
}

func hasProperty(s *schema, name string) bool {
	for _, p := range s.Properties {
		if p.Name == name {
			return true
		}
	}
	return false
}

// union maps anyOf/oneOf. `{"not":{}}` (may be absent) and `{"type":"null"}`
// make the rest optional or nullable; one variant left is that variant;
// objects merge into one struct; string constants and enums into one enum;
// anything else stays raw JSON.
func (t *types) union(s *schema, hint string) (string, error) {
	nullable := false
	var vs []*schema
	for _, v := range append(append([]*schema{}, s.AnyOf...), s.OneOf...) {
		switch {
		case v.isAbsent():
		case v.isNull():
			nullable = true
		case v.Ref == "" && len(v.Type) == 0 && len(v.Properties) == 0 && len(v.AnyOf) == 0 && v.Const == nil && len(v.Enum) == 0:
			// Only constrains the enclosing object ({"required": [...]}).
		default:
			vs = append(vs, v)
		}
	}
	// An object that lists its properties beside the anyOf: the anyOf only
	// says which of them are required together.
	if len(s.Properties) > 0 {
		g, err := t.object(s, hint)
		return maybePointer(g, nullable), err
	}
	if len(vs) == 0 {
		return rawJSON, nil
	}
	if len(vs) == 1 {
		v := *vs[0]
		if v.Description == "" {
			v.Description = s.Description
		}
		g, err := t.goType(&v, hint)
		return maybePointer(g, nullable), err
	}
	resolved := make([]*schema, len(vs))
	objects, strs := true, true
	for i, v := range vs {
		r := t.resolve(v)
		resolved[i] = r
		isObj := len(r.Properties) > 0 && (len(r.Type) == 0 || r.Type.has("object"))
		isStr := (r.Type.has("string") || len(r.Type) == 0) && (len(r.Enum) > 0 || isString(r.Const))
		objects = objects && isObj
		strs = strs && isStr
	}
	switch {
	case objects:
		g, err := t.structOf(s, hint, resolved)
		return maybePointer(g, nullable), err
	case strs:
		merged := &schema{Type: typeList{"string"}, Description: s.Description, EnumDescriptions: map[string]string{}}
		for _, r := range resolved {
			if r.Const != nil {
				merged.Enum = append(merged.Enum, r.Const)
				if r.Description != "" {
					merged.EnumDescriptions[r.Const.(string)] = r.Description
				}
			}
			merged.Enum = append(merged.Enum, r.Enum...)
			for k, d := range r.EnumDescriptions {
				merged.EnumDescriptions[k] = d
			}
		}
		g, err := t.enum(merged, hint)
		return maybePointer(g, nullable), err
	}
	return rawJSON, nil
}

func maybePointer(g string, nullable bool) string {
	if nullable {
		return pointer(g)
	}
	return g
}

func isString(v any) bool { _, ok := v.(string); return ok }

// resolve follows $refs to the schema they name.
func (t *types) resolve(s *schema) *schema {
	for i := 0; s.Ref != "" && i < 32; i++ {
		d, ok := t.defs[s.refName()]
		if !ok {
			return s
		}
		s = d
	}
	return s
}

// enum declares a string type with one constant per value.
func (t *types) enum(s *schema, hint string) (string, error) {
	key := hint + "\x00" + canonical(s)
	if g, ok := t.inline[key]; ok {
		return g, nil
	}
	var values []string
	seen := map[string]bool{}
	for _, v := range s.Enum {
		str, ok := v.(string)
		if !ok {
			// Enums of numbers or mixed kinds are not worth a type.
			return rawJSON, nil
		}
		if !seen[str] {
			seen[str] = true
			values = append(values, str)
		}
	}
	name := t.claim(hint)
	t.inline[key] = name
	nt := &namedType{Name: name, Doc: s.Description, Kind: kindEnum}
	used := map[string]bool{}
	for _, v := range values {
		c := name + exported(v)
		for used[c] || (t.taken[c] && c != name) {
			c += "_"
		}
		used[c] = true
		nt.Values = append(nt.Values, enumValue{Name: c, Value: v, Doc: s.EnumDescriptions[v]})
	}
	t.named[name] = nt
	return name, nil
}

// fieldDoc is a property's comment: its description, and what the schema
// says of its stability.
func fieldDoc(s *schema) string {
	d := s.Description
	if d == "" && s.Ref != "" {
		d = ""
	}
	if s.Deprecated {
		d = strings.TrimSpace(d + "\n\nDeprecated: the CLI's schema marks this field deprecated.")
	}
	return d
}

// sameSchema compares two schemas without their prose.
func sameSchema(a, b *schema) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return sameShape(x, y)
}

// canonical is a stable text of a schema, to tell equal inline schemas.
func canonical(s *schema) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
