package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The composite schemas: objects, unions and enums, and the comparisons
// that tell two inline schemas apart.

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
