package copilot

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// ErrUnsupportedSchemaType is wrapped by the error of JSONSchemaFor (and
// the panic of DefineTool) for a Go type that JSON cannot carry to a tool
// (a channel, a function, a complex number), or that refers to itself.
var ErrUnsupportedSchemaType = errors.New("copilot: this Go type cannot describe a tool's arguments")

// JSONSchemaFor returns the JSON Schema of the JSON that encoding/json
// decodes into a T, for a tool's Parameters. T must be a struct, a map or
// a pointer to one of them (a tool's arguments are a JSON object).
//
// Struct fields follow their json tags as encoding/json does (the name,
// "-", embedded structs promoted); a field is required unless its tag says
// omitempty or omitzero. A `jsonschema` tag adds what Go cannot say:
//
//	City  string   `json:"city" jsonschema:"description=The city, as its people spell it"`
//	Unit  string   `json:"unit,omitempty" jsonschema:"enum=celsius|fahrenheit,description=Defaults to celsius"`
//
// enum lists the allowed values, separated by |; description runs to the
// end of the tag (so it may hold commas) and must come last. Strings,
// booleans, integers (unsigned ones at least 0), floats, slices and
// arrays, maps with string or integer keys, time.Time (a date-time
// string), types that marshal as text (a string), and any/json.RawMessage
// (any JSON value) are described; types with their own MarshalJSON are
// taken as any JSON value.
func JSONSchemaFor[T any]() (json.RawMessage, error) {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct && t.Kind() != reflect.Map {
		return nil, fmt.Errorf("%w: %v is not a struct or a map; a tool's arguments are a JSON object", ErrUnsupportedSchemaType, t)
	}
	s, err := schemaOf(t, map[reflect.Type]bool{})
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// schema is one JSON Schema, only the keywords this file writes.
type schema struct {
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Description          string             `json:"description,omitempty"`
	Enum                 []any              `json:"enum,omitempty"`
	Minimum              *int               `json:"minimum,omitempty"`
	Items                *schema            `json:"items,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	Properties           map[string]*schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"`
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// schemaOf describes t. open holds the struct types being described, so a
// type that contains itself is refused rather than followed forever.
func schemaOf(t reflect.Type, open map[reflect.Type]bool) (*schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return &schema{Type: "string", Format: "date-time"}, nil
	case t == rawMessageType:
		return &schema{}, nil
	case implements(t, jsonMarshalerType):
		return &schema{}, nil // its own shape, which reflection cannot see
	case implements(t, textMarshalerType):
		return &schema{Type: "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &schema{Type: "boolean"}, nil
	case reflect.String:
		return &schema{Type: "string"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &schema{Type: "integer"}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		zero := 0
		return &schema{Type: "integer", Minimum: &zero}, nil
	case reflect.Float32, reflect.Float64:
		return &schema{Type: "number"}, nil
	case reflect.Interface:
		return &schema{}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return &schema{Type: "string", Format: "byte"}, nil // encoding/json: base64
		}
		items, err := schemaOf(t.Elem(), open)
		if err != nil {
			return nil, err
		}
		s := &schema{Type: "array", Items: items}
		if t.Kind() == reflect.Array {
			n := t.Len()
			s.MinItems, s.MaxItems = &n, &n
		}
		return s, nil
	case reflect.Map:
		if !jsonMapKey(t.Key()) {
			return nil, fmt.Errorf("%w: %v has keys that are not strings or integers", ErrUnsupportedSchemaType, t)
		}
		values, err := schemaOf(t.Elem(), open)
		if err != nil {
			return nil, err
		}
		return &schema{Type: "object", AdditionalProperties: values}, nil
	case reflect.Struct:
		return structSchema(t, open)
	}
	return nil, fmt.Errorf("%w: %v (a %v)", ErrUnsupportedSchemaType, t, t.Kind())
}

// structSchema describes a struct as an object of its JSON fields.
func structSchema(t reflect.Type, open map[reflect.Type]bool) (*schema, error) {
	if open[t] {
		return nil, fmt.Errorf("%w: %v contains itself", ErrUnsupportedSchemaType, t)
	}
	open[t] = true
	defer delete(open, t)
	s := &schema{Type: "object", Properties: map[string]*schema{}, AdditionalProperties: false}
	if err := addFields(s, t, open); err != nil {
		return nil, err
	}
	return s, nil
}

// addFields adds t's JSON fields to s, those of embedded structs as
// encoding/json promotes them (an outer field of the same name wins).
func addFields(s *schema, t reflect.Type, open map[reflect.Type]bool) error {
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && (!hasTag || name == "") && ft.Kind() == reflect.Struct {
			embedded = append(embedded, ft)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := s.Properties[name]; taken {
			continue
		}
		fs, err := schemaOf(f.Type, open)
		if err != nil {
			return fmt.Errorf("field %s of %v: %w", f.Name, t, err)
		}
		if hasOpt(opts, "string") && (fs.Type == "integer" || fs.Type == "number" || fs.Type == "boolean") {
			fs = &schema{Type: "string"} // encoding/json quotes it
		}
		if err := applyTag(fs, f.Tag.Get("jsonschema")); err != nil {
			return fmt.Errorf("field %s of %v: %w", f.Name, t, err)
		}
		s.Properties[name] = fs
		if !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero") {
			s.Required = append(s.Required, name)
		}
	}
	for _, et := range embedded {
		if open[et] {
			return fmt.Errorf("%w: %v contains itself", ErrUnsupportedSchemaType, et)
		}
		if err := addFields(s, et, open); err != nil {
			return err
		}
	}
	return nil
}

// applyTag reads a `jsonschema` tag into s: enum=a|b|c, description=...
// (last, to the end of the tag).
func applyTag(s *schema, tag string) error {
	for tag != "" {
		var part string
		if strings.HasPrefix(tag, "description=") {
			s.Description, tag = strings.TrimPrefix(tag, "description="), ""
			continue
		}
		part, tag, _ = strings.Cut(tag, ",")
		key, value, _ := strings.Cut(part, "=")
		switch key {
		case "enum":
			for _, v := range strings.Split(value, "|") {
				e, err := enumValue(v, s.Type)
				if err != nil {
					return err
				}
				s.Enum = append(s.Enum, e)
			}
		default:
			return fmt.Errorf("jsonschema tag: unknown key %q (known: enum=a|b, description=... last)", key)
		}
	}
	return nil
}

// enumValue is an enum entry as a JSON value of the field's schema type:
// the text itself for a string, else the JSON it spells.
func enumValue(v, typ string) (any, error) {
	if typ == "string" {
		return v, nil
	}
	var x any
	if err := json.Unmarshal([]byte(v), &x); err != nil {
		return nil, fmt.Errorf("jsonschema tag: enum value %q is not JSON, as a field of type %q needs", v, typ)
	}
	return x, nil
}

// jsonMapKey reports whether encoding/json encodes maps with keys of t.
func jsonMapKey(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return implements(t, textMarshalerType)
}

// implements reports whether t or *t implements iface, as encoding/json
// finds a marshaler on an addressable value.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// hasOpt reports whether a json tag's options (after the name) hold opt.
func hasOpt(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == opt {
			return true
		}
	}
	return false
}
