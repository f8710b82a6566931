package workspace

import (
	"context"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/gittest"
)

// Gather reads the newcomer files at HEAD (not the working tree), the
// tracked tree (nothing ignored or untracked), and the history; binary
// files are left out.
func TestGather(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{
		"readme.md":  "# Demo\n",
		"go.mod":     "module demo\n",
		"AGENTS.md":  "Run go test.\n",
		"main.go":    "package main\n",
		"Makefile":   "all:\n\tgo build\n",
		".gitignore": "secret.env\n",
		"logo.png":   "\x89PNG\x00\x00",
	})
	gittest.Write(t, dir, map[string]string{"readme.md": "# uncommitted edit\n", "secret.env": "TOKEN=x", "untracked.go": "package x"})
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Gather(context.Background(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	byPath := map[string]Source{}
	for _, s := range got {
		paths = append(paths, s.Path)
		byPath[s.Path] = s
	}
	if want := "readme.md AGENTS.md go.mod Makefile (file tree) (git log -5 --oneline)"; strings.Join(paths, " ") != want {
		t.Fatalf("read %q, want %q", strings.Join(paths, " "), want)
	}
	if byPath["readme.md"].Text != "# Demo\n" {
		t.Fatalf("readme.md read as %q, want HEAD's text", byPath["readme.md"].Text)
	}
	tree := byPath[SourceTree].Text
	for _, p := range []string{"main.go", "logo.png", ".gitignore"} {
		if !strings.Contains(tree, p+"\n") {
			t.Errorf("the tree lacks %s:\n%s", p, tree)
		}
	}
	for _, p := range []string{"secret.env", "untracked.go"} {
		if strings.Contains(tree, p) {
			t.Errorf("the tree lists %s, which git does not track", p)
		}
	}
	if !strings.Contains(byPath[SourceLog].Text, "initial") {
		t.Errorf("the history is %q", byPath[SourceLog].Text)
	}
}

// The budget bounds the text read: the source that does not fit is cut
// and marked, the rest are not read.
func TestGatherBudget(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"README.md": strings.Repeat("é", 100), "go.mod": "module demo\n"})
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Gather(context.Background(), 51)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "README.md" || !got[0].Truncated || got[0].Size != 200 || len(got[0].Text) != 50 {
		t.Fatalf("Gather with a 51-byte budget = %+v; want README.md cut to 50 bytes (whole characters), marked", got)
	}
}
