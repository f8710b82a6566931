package cli

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// go.mod's go line is the least Go that builds the module: no higher than
// the highest go line among the modules it requires, which is what the
// build needs of them (the code itself needs Go 1.25: sync.WaitGroup.Go),
// and the README tells the same version and how to install the command.
func TestGoLineIsTheRealMinimum(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	ours := string(m[1])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-mod=readonly", "-m", "-f", "{{if not .Main}}{{.Path}} {{.GoVersion}}{{end}}", "all")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOPROXY=off")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list -m all: %v (the module cache is needed)", err)
	}
	need, by := "1.25.0", "the code (sync.WaitGroup.Go)"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, v, _ := strings.Cut(line, " ")
		if v != "" && goLess(need, v) {
			need, by = v, path
		}
	}
	if ours != need {
		t.Errorf("go.mod says go %s; the least the build needs is go %s (%s)", ours, need, by)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go install github.com/quorum-go/quorum/cmd/quorum@latest", "`go " + ours + "`", "go build -o bin/quorum ./cmd/quorum"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q", want)
		}
	}
}

// goLess compares Go versions such as 1.24 and 1.26.0.
func goLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
