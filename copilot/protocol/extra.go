package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// ErrExtraParamNamed is wrapped by the error of marshalling
// SessionCreateParams whose Extra repeats a param a field names.
var ErrExtraParamNamed = errors.New("protocol: an extra param repeats one the typed params name")

// MarshalJSON writes the params with Extra's members beside the named ones.
// A member of Extra that a field writes (even one left empty) is refused:
// which of the two would win is not for the wire to decide.
func (p SessionCreateParams) MarshalJSON() ([]byte, error) {
	type named SessionCreateParams // without this method
	if len(p.Extra) == 0 {
		return json.Marshal(named(p))
	}
	for k := range p.Extra {
		if CreateParamNamed(k) {
			return nil, fmt.Errorf("%w: %q", ErrExtraParamNamed, k)
		}
	}
	b, err := json.Marshal(named(p))
	if err != nil {
		return nil, err
	}
	all := make(map[string]json.RawMessage, len(p.Extra)+16)
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for k, v := range p.Extra {
		all[k] = v
	}
	return json.Marshal(all)
}

// CreateParamNamed reports whether a field of SessionCreateParams writes
// the wire param name.
func CreateParamNamed(name string) bool {
	_, ok := createParamNames()[name]
	return ok
}

var createParamNames = sync.OnceValue(func() map[string]struct{} {
	names := map[string]struct{}{}
	t := reflect.TypeFor[SessionCreateParams]()
	for i := range t.NumField() {
		f := t.Field(i)
		switch tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag {
		case "-":
		case "":
			names[f.Name] = struct{}{} // encoding/json's name for it (extra_test.go: none is embedded)
		default:
			names[tag] = struct{}{}
		}
	}
	return names
})
