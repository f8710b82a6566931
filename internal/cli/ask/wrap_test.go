package ask

import (
	"strings"
	"testing"
)

// A streamed answer is broken at spaces, never inside a word, whatever
// pieces it arrives in; a word wider than the line is broken at its end.
func TestWordWrapperBreaksAtSpaces(t *testing.T) {
	text := "the quick brown fox jumps over the lazy dog and a supercalifragilistic word\nnew line"
	for _, size := range []int{1, 3, 7, len(text)} {
		var b strings.Builder
		ww := &wordWrapper{w: &b, width: 12}
		for i := 0; i < len(text); i += size {
			ww.WriteString(text[i:min(i+size, len(text))])
		}
		ww.Flush()
		want := "the quick \nbrown fox \njumps over \nthe lazy dog\nand a \nsupercalifra\ngilistic \nword\nnew line"
		if b.String() != want {
			t.Errorf("pieces of %d:\n%q\nwant\n%q", size, b.String(), want)
		}
	}
}
