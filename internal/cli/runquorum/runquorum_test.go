package runquorum

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// CheckWritable finds a path that cannot be written, and leaves one that
// can as it was: a new file is not left behind, an existing one keeps
// its content.
func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	if err := CheckWritable(filepath.Join(dir, "no", "such", "dir", "f")); err == nil {
		t.Error("a path in a missing folder was taken as writable")
	}
	fresh := filepath.Join(dir, "fresh")
	if err := CheckWritable(fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the check left a file behind: %v", err)
	}
	old := filepath.Join(dir, "old")
	if err := os.WriteFile(old, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(old); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(old); string(b) != "kept" {
		t.Errorf("the existing file now holds %q", b)
	}
	if err := CheckWritable(""); err != nil {
		t.Errorf("no path: %v", err)
	}
}

// The SARIF log names quorum at the version it is given, and an empty
// review has a run with no results.
func TestBuildSARIFNamesTheVersion(t *testing.T) {
	log := BuildSARIF("v1.2.3", &quorum.ReviewResult{}, true)
	if len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Version != "v1.2.3" || len(log.Runs[0].Results) != 0 {
		t.Errorf("runs %+v", log.Runs)
	}
}

func TestPlural(t *testing.T) {
	if got := Plural(1, "file") + ", " + Plural(2, "file"); got != "1 file, 2 files" {
		t.Errorf("got %q", got)
	}
}
