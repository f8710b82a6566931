package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// schema is the part of a JSON Schema (draft 07 / 2019-09) that the CLI's
// schema files use and that decides a Go type. Keywords that only
// constrain values (minimum, pattern, …) are not kept: the Go type cannot
// say them, and the CLI checks them.
type schema struct {
	Ref                  string            `json:"$ref"`
	Type                 typeList          `json:"type"`
	Title                string            `json:"title"`
	Description          string            `json:"description"`
	Properties           properties        `json:"properties"`
	Required             []string          `json:"required"`
	AdditionalProperties json.RawMessage   `json:"additionalProperties"`
	Items                *schema           `json:"items"`
	AnyOf                []*schema         `json:"anyOf"`
	OneOf                []*schema         `json:"oneOf"`
	Not                  *schema           `json:"not"`
	Enum                 []any             `json:"enum"`
	Const                any               `json:"const"`
	Format               string            `json:"format"`
	Deprecated           bool              `json:"deprecated"`
	Stability            string            `json:"stability"`
	Visibility           string            `json:"visibility"`
	OpaqueJSON           bool              `json:"x-opaque-json"`
	EnumDescriptions     map[string]string `json:"x-enumDescriptions"`
}

// typeList is "type": either one name or a list of them.
type typeList []string

func (t *typeList) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '[' {
		var l []string
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		*t = l
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = typeList{s}
	return nil
}

// has says whether the list names t.
func (t typeList) has(name string) bool {
	for _, n := range t {
		if n == name {
			return true
		}
	}
	return false
}

// property is one entry of "properties", in the order the file gives.
type property struct {
	Name   string
	Schema *schema
}

// properties keeps the file's order, so generated structs read like the
// schema (encoding/json's maps would sort or shuffle them).
type properties []property

func (p *properties) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("properties: want an object")
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var s schema
		if err := d.Decode(&s); err != nil {
			return fmt.Errorf("property %s: %w", name, err)
		}
		*p = append(*p, property{Name: name, Schema: &s})
	}
	_, err := d.Token()
	return err
}

// required says whether the object schema requires property name.
func (s *schema) required(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// additional is the schema of additionalProperties when it is a schema
// (not false, true or absent).
func (s *schema) additional() *schema {
	b := bytes.TrimSpace(s.AdditionalProperties)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var a schema
	if json.Unmarshal(b, &a) != nil {
		return nil
	}
	return &a
}

// refName is the definition a $ref points at ("#/definitions/Name").
func (s *schema) refName() string {
	i := strings.LastIndexByte(s.Ref, '/')
	return s.Ref[i+1:]
}

// isAbsent is `{"not": {}}`: the schema files' way to say a value may be
// left out entirely (params of a method that takes none).
func (s *schema) isAbsent() bool {
	return s.Not != nil && s.Not.Ref == "" && len(s.Not.Type) == 0 && s.Ref == "" && len(s.Type) == 0
}

// isNull is `{"type": "null"}`.
func (s *schema) isNull() bool {
	return len(s.Type) == 1 && s.Type[0] == "null" && s.Ref == "" && len(s.AnyOf) == 0
}
