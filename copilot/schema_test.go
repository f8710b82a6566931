package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

type forecastArgs struct {
	City     string    `json:"city" jsonschema:"description=The city, as its people spell it"`
	Days     int       `json:"days,omitempty" jsonschema:"enum=1|3|7,description=How many days ahead"`
	Unit     string    `json:"unit,omitempty" jsonschema:"enum=celsius|fahrenheit"`
	Detailed *bool     `json:"detailed,omitempty"`
	Stations []station `json:"stations"`
	Tags     map[string]int
	From     time.Time       `json:"from,omitzero"`
	Extra    json.RawMessage `json:"extra,omitempty"`
	Blob     []byte          `json:"blob,omitempty"`
	Addr     netip.Addr      `json:"addr,omitzero"`
	Count    uint8           `json:"count,string,omitempty"`
	Pair     [2]float64      `json:"pair,omitzero"`
	Any      any             `json:"any,omitempty"`
	Ignored  string          `json:"-"`
	//lint:ignore U1000 an unexported field is in the fixture to show that the schema leaves it out
	hidden string
	place
}

type station struct {
	ID       string  `json:"id"`
	Altitude float64 `json:"altitude,omitempty"`
}

type place struct {
	Country string `json:"country"`
	City    string `json:"city"` // shadowed by forecastArgs.City
}

func TestJSONSchemaForAStruct(t *testing.T) {
	raw, err := JSONSchemaFor[forecastArgs]()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	props := got["properties"].(map[string]any)
	want := map[string]string{
		"city":     `{"description":"The city, as its people spell it","type":"string"}`,
		"days":     `{"description":"How many days ahead","enum":[1,3,7],"type":"integer"}`,
		"unit":     `{"enum":["celsius","fahrenheit"],"type":"string"}`,
		"detailed": `{"type":"boolean"}`,
		"stations": `{"items":{"additionalProperties":false,"properties":{"altitude":{"type":"number"},"id":{"type":"string"}},"required":["id"],"type":"object"},"type":"array"}`,
		"Tags":     `{"additionalProperties":{"type":"integer"},"type":"object"}`,
		"from":     `{"format":"date-time","type":"string"}`,
		"extra":    `{}`,
		"blob":     `{"format":"byte","type":"string"}`,
		"addr":     `{"type":"string"}`,
		"count":    `{"type":"string"}`,
		"pair":     `{"items":{"type":"number"},"maxItems":2,"minItems":2,"type":"array"}`,
		"any":      `{}`,
		"country":  `{"type":"string"}`,
	}
	for name, w := range want {
		b, _ := json.Marshal(props[name])
		if string(b) != w {
			t.Errorf("%s: %s, want %s", name, b, w)
		}
	}
	if len(props) != len(want) {
		t.Errorf("%d properties, want %d: %s", len(props), len(want), raw)
	}
	req, _ := json.Marshal(got["required"])
	if string(req) != `["city","stations","Tags","country"]` {
		t.Errorf("required = %s", req)
	}
	if got["type"] != "object" || got["additionalProperties"] != false {
		t.Errorf("top level: %s", raw)
	}
}

// What encoding/json makes of a value fits the schema of its type, and
// what the schema refuses does not decode into it as given.
func TestJSONSchemaForValidatesItsOwnType(t *testing.T) {
	raw, err := JSONSchemaFor[*forecastArgs]()
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("forecast.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("forecast.json")
	if err != nil {
		t.Fatalf("not a valid JSON Schema: %v\n%s", err, raw)
	}
	yes := true
	v := forecastArgs{City: "Oslo", Days: 3, Detailed: &yes, Stations: []station{{ID: "a", Altitude: 12}},
		Tags: map[string]int{"x": 1}, From: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Extra: json.RawMessage(`[1]`),
		Blob: []byte("hi"), Addr: netip.MustParseAddr("10.0.0.1"), Count: 4, Pair: [2]float64{1, 2}, Any: "x",
		place: place{Country: "NO"}}
	for _, instance := range []any{v, forecastArgs{Stations: []station{}, Tags: map[string]int{}}} {
		b, _ := json.Marshal(instance)
		doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s does not fit its schema: %v", b, err)
		}
	}
	for _, bad := range []string{`{"city":"Oslo"}`, `{"city":"Oslo","stations":[],"Tags":{},"country":"NO","days":2}`,
		`{"city":"Oslo","stations":[],"Tags":{},"country":"NO","wind":true}`} {
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if sch.Validate(doc) == nil {
			t.Errorf("%s fits the schema", bad)
		}
	}
}

func TestJSONSchemaForAMap(t *testing.T) {
	raw, err := JSONSchemaFor[map[string][]string]()
	if err != nil || string(raw) != `{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}}` {
		t.Fatalf("%s, %v", raw, err)
	}
}

type selfRef struct {
	Next *selfRef `json:"next"`
}

type embedsSelf struct {
	//lint:ignore U1000 the fixture is a type that embeds itself; nothing reads the field
	*embedsSelf
	A int
}

type badTag struct {
	A int `json:"a" jsonschema:"minimum=3"`
}

type badEnum struct {
	A int `json:"a" jsonschema:"enum=one|two"`
}

// Types JSON cannot carry, or that contain themselves, are refused with
// an error naming the field.
func TestJSONSchemaForRefuses(t *testing.T) {
	for name, f := range map[string]func() (json.RawMessage, error){
		"a string":        JSONSchemaFor[string],
		"a slice":         JSONSchemaFor[[]int],
		"a channel field": JSONSchemaFor[struct{ C chan int }],
		"a func field":    JSONSchemaFor[struct{ F func() }],
		"complex":         JSONSchemaFor[struct{ Z complex128 }],
		"struct keys":     JSONSchemaFor[map[station]int],
		"recursive":       JSONSchemaFor[selfRef],
		"embeds itself":   JSONSchemaFor[embedsSelf],
	} {
		if _, err := f(); !errors.Is(err, ErrUnsupportedSchemaType) {
			t.Errorf("%s: %v, want ErrUnsupportedSchemaType", name, err)
		}
	}
	if _, err := JSONSchemaFor[struct{ C chan int }](); err == nil || !strings.Contains(err.Error(), "field C") {
		t.Errorf("the error does not name the field: %v", err)
	}
	if _, err := JSONSchemaFor[badTag](); err == nil || !strings.Contains(err.Error(), `unknown key "minimum"`) {
		t.Errorf("an unknown tag key: %v", err)
	}
	if _, err := JSONSchemaFor[badEnum](); err == nil || !strings.Contains(err.Error(), `"one"`) {
		t.Errorf("an enum value that is not an integer: %v", err)
	}
}
