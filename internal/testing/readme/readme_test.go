package readme

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The README's package table lists exactly the packages `go list ./...`
// finds.
func TestPackageTableMatchesGoList(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the check needs the go command: %v", err)
	}
	root, module := mainModule(t, goBin)
	readDirs(t, root)
	// -e lists a package that does not build as well: a half-edited package
	// elsewhere is still a package the table must name, and its errors are
	// for its own tests to report.
	cmd := exec.Command(goBin, "list", "-e", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []string
	for line := range strings.Lines(string(out)) {
		path := strings.TrimSpace(line)
		if path == module {
			pkgs = append(pkgs, ".")
		} else if rel, ok := strings.CutPrefix(path, module+"/"); ok {
			pkgs = append(pkgs, rel)
		} else {
			t.Fatalf("go list ./... printed %q, outside module %s", path, module)
		}
	}

	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed, err := packageTable(string(readme))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	for _, problem := range compare(listed, pkgs) {
		t.Error("README.md's package table: " + problem)
	}
}

// The check fails when a row is missing, when a row names a package that
// does not exist, and when a package is named twice; packages sharing a row
// count as listed.
func TestCompareFindsEachMismatch(t *testing.T) {
	const readme = "# x\n\n## Packages\n\n| package | what it is |\n| --- | --- |\n" +
		"| `copilot` | the client, see `router` |\n" +
		"| `internal/soak`, `internal/cmd/soak` | a tool |\n" +
		"| `gone` | removed |\n" +
		"| `copilot` | again |\n" +
		"\n## Next\n\n| `router` | not the package table |\n"
	listed, err := packageTable(readme)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"copilot", "internal/soak", "internal/cmd/soak", "gone", "copilot"}
	if !slices.Equal(listed, want) {
		t.Fatalf("packageTable = %q, want %q (first column only, this section only)", listed, want)
	}
	got := compare(listed, []string{"copilot", "router", "internal/soak", "internal/cmd/soak"})
	wantProblems := []string{
		`no row for package "router"`,
		`row for "gone", which go list does not find`,
		`"copilot" is listed 2 times`,
	}
	if !slices.Equal(got, wantProblems) {
		t.Fatalf("compare = %q, want %q", got, wantProblems)
	}
	if got := compare([]string{"copilot", "router"}, []string{"router", "copilot"}); len(got) != 0 {
		t.Fatalf("compare of matching lists = %q, want nothing", got)
	}
}

// A table the check cannot read is an error, not an empty list that would
// pass for a module without packages.
func TestPackageTableRefusesWhatItCannotRead(t *testing.T) {
	for name, readme := range map[string]string{
		"no section":       "# x\n\n## Other\n",
		"no rows":          "## Packages\n\nprose only\n",
		"row without name": "## Packages\n\n| package | what |\n| --- | --- |\n| copilot | unquoted |\n",
	} {
		if listed, err := packageTable(readme); err == nil {
			t.Errorf("%s: packageTable = %q, want an error", name, listed)
		}
	}
}

// mainModule returns the main module's directory, where the README sits,
// and its path, which `go list` puts before every package's.
func mainModule(t *testing.T, goBin string) (dir, path string) {
	out, err := exec.Command(goBin, "list", "-m", "-f", "{{.Dir}}\t{{.Path}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	dir, path, ok := strings.Cut(strings.TrimSpace(string(out)), "\t")
	if !ok || dir == "" || path == "" {
		t.Fatalf("go list -m printed %q, want the main module's directory and path", out)
	}
	return dir, path
}

// readDirs reads every directory a package could be in. go test caches a
// passing result keyed on the files and directories the test opened, not on
// what a command it ran read: without this, a package added after a pass
// would leave the cached pass standing (seen: a new internal/newpkg, and
// "ok (cached)"). A directory opened is keyed on its entries, so a new
// package, or a first .go file in a folder, reruns the test.
func readDirs(t *testing.T, root string) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir // go list ./... skips these too
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// backquoted finds `name` spans.
var backquoted = regexp.MustCompile("`([^`]+)`")

// packageTable returns the package paths in the first column of the table
// under the README's "## Packages" heading, in order, repeats kept.
func packageTable(readme string) ([]string, error) {
	var listed []string
	in, rows := false, 0
	for line := range strings.Lines(readme) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "## ") {
			if in {
				break
			}
			in = line == "## Packages"
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			return nil, fmt.Errorf("row %q has no second column", line)
		}
		first := strings.TrimSpace(cells[1])
		if first == "package" || strings.Trim(first, "-: ") == "" {
			continue // the header and its rule
		}
		rows++
		names := backquoted.FindAllStringSubmatch(first, -1)
		if len(names) == 0 {
			return nil, fmt.Errorf("row %q names no package in backquotes", line)
		}
		for _, n := range names {
			listed = append(listed, n[1])
		}
	}
	if rows == 0 {
		return nil, fmt.Errorf(`no table rows under "## Packages"`)
	}
	return listed, nil
}

// compare reports each package without a row, each row naming a package
// that does not exist, and each package named more than once.
func compare(listed, pkgs []string) []string {
	var problems []string
	count := map[string]int{}
	for _, p := range listed {
		count[p]++
	}
	for _, p := range pkgs {
		if count[p] == 0 {
			problems = append(problems, fmt.Sprintf("no row for package %q", p))
		}
	}
	for _, p := range listed {
		if !slices.Contains(pkgs, p) {
			problems = append(problems, fmt.Sprintf("row for %q, which go list does not find", p))
		}
	}
	for _, p := range listed {
		if n := count[p]; n > 1 {
			problems = append(problems, fmt.Sprintf("%q is listed %d times", p, n))
			count[p] = 0 // once per package
		}
	}
	return problems
}
