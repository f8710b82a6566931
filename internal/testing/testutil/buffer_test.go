package testutil

import (
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Writers on many goroutines lose nothing; with Max, the first Max bytes
// are kept and every write still reports all of it taken.
func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("ab"))
			}
		})
	}
	wg.Wait()
	if got := b.String(); len(got) != 1600 || strings.Count(got, "ab") != 800 {
		t.Fatalf("kept %d bytes", len(got))
	}

	capped := Buffer{Max: 5}
	for _, w := range []string{"abc", "def", "ghi"} {
		if n, err := capped.Write([]byte(w)); n != 3 || err != nil {
			t.Fatalf("Write(%q) = %d, %v", w, n, err)
		}
	}
	if got := capped.String(); got != "abcde" {
		t.Fatalf("kept %q, want the first 5 bytes", got)
	}
}
