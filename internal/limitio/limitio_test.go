package limitio

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// What fits is kept, the rest counted away without an error; Over says
// whether anything was dropped.
func TestBufferKeepsTheFirstMaxBytes(t *testing.T) {
	b := &Buffer{Max: 5}
	for _, s := range []string{"abc", "defg", "hij"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if b.String() != "abcde" || !b.Over() {
		t.Fatalf("kept %q, over %v", b.String(), b.Over())
	}
	exact := &Buffer{Max: 3}
	exact.Write([]byte("abc"))
	if exact.Over() || string(exact.Bytes()) != "abc" {
		t.Fatalf("a write of exactly Max: kept %q, over %v", exact.Bytes(), exact.Over())
	}
}
