package modelapi

import (
	"reflect"
	"testing"
)

func TestSplitRunes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want []string
	}{
		{"", 3, []string{""}},
		{"abc", 0, []string{"abc"}},
		{"abc", 1, []string{"abc"}},
		{"abc", 5, []string{"a", "b", "c"}},
		{"abcdefg", 3, []string{"abc", "de", "fg"}},
		{"héllo", 2, []string{"hél", "lo"}},
	} {
		if got := splitRunes(tc.s, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitRunes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestEchoAndSequenceEdges(t *testing.T) {
	r := Echo(Request{UserText: "hi"})
	if r.Text != "hi" || len(r.Calls) != 0 {
		t.Errorf("Echo = %+v", r)
	}
	r = Echo(Request{HasToolResults: true, Messages: []Message{
		{Role: "user", Content: "q"}, {Role: "tool", Content: "r1"}, {Role: "tool", Content: "r2"}}})
	if r.Text != "r1\nr2" {
		t.Errorf("Echo after tools = %q", r.Text)
	}
	defer func() {
		if recover() == nil {
			t.Error("Sequence() with no replies should panic")
		}
	}()
	Sequence()
}
