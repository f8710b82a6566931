package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
	"github.com/muesli/termenv"
)

func TestZZTmp(t *testing.T) {
	para := "[simulated sim-gamma] Looking at adopt, the deciding factor is what you can least afford to get wrong. A small experiment on adopt will settle more than a long debate. Most trouble with adopt comes from the edges. Judge any plan for adopt by the worst case, not the average one. I would revisit this once real data comes in."
	md := "> " + para + "\n"
	for _, ind := range []uint{0, 1, 2, 3} {
		bad := []int{}
		for w := 40; w <= 140; w++ {
			s := indentedQuotes(styles.DarkStyleConfig)
			s.BlockQuote.Indent = &ind
			r, _ := glamour.NewTermRenderer(glamour.WithStyles(s), glamour.WithColorProfile(termenv.ANSI256), glamour.WithWordWrap(w))
			out, _ := r.Render(md)
			out = sgrRE.ReplaceAllString(out, "")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			for i := 0; i+1 < len(lines); i++ {
				a, b := strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
				if len(a)+1+len(strings.Fields(b)[0]) <= w-4-int(ind)-2 && len(strings.Fields(a)) == 1 {
					bad = append(bad, w)
				}
			}
		}
		fmt.Println(ind, bad)
	}
}
