package protocol

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestSessionCreateParamsExtra(t *testing.T) {
	p := SessionCreateParams{Model: "m", Extra: map[string]json.RawMessage{"enableCitations": json.RawMessage(`true`)}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil || got["model"] != "m" || got["enableCitations"] != true || got["streaming"] != false {
		t.Fatalf("marshalled %s: %v", b, err)
	}
	// Without Extra, the params are exactly the named fields.
	p.Extra = nil
	plain, _ := json.Marshal(p)
	type named SessionCreateParams
	want, _ := json.Marshal(named(p))
	if string(plain) != string(want) {
		t.Fatalf("without Extra: %s, want %s", plain, want)
	}
	// A name a field writes is refused, even when the field is empty.
	for _, name := range []string{"model", "gitHubToken"} {
		p.Extra = map[string]json.RawMessage{name: json.RawMessage(`"x"`)}
		if _, err := json.Marshal(p); !errors.Is(err, ErrExtraParamNamed) {
			t.Errorf("Extra[%q]: %v, want ErrExtraParamNamed", name, err)
		}
	}
	if CreateParamNamed("Extra") || CreateParamNamed("") || !CreateParamNamed("sessionId") {
		t.Error("CreateParamNamed reads the wrong names")
	}
	// Every field is named on the wire by its tag: an embedded struct
	// would add names CreateParamNamed does not know.
	typ := reflect.TypeFor[SessionCreateParams]()
	for i := range typ.NumField() {
		if f := typ.Field(i); f.Anonymous || f.Tag.Get("json") == "" {
			t.Errorf("field %s has no json tag or is embedded", f.Name)
		}
	}
}
