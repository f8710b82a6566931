package quorum

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// gitDiff has what git diff writes: a modified file whose deleted line
// starts with "--" (a Lua comment), a new file, a deleted one, a pure
// rename, a binary file and a quoted path.
const gitDiff = `diff --git a/app/db.lua b/app/db.lua
index 1111111..2222222 100644
--- a/app/db.lua
+++ b/app/db.lua
@@ -1,4 +1,3 @@
 local db = {}
--- old comment
+-- new comment
 return db
-
diff --git a/new.go b/new.go
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.go
@@ -0,0 +1,2 @@
+package x
+var y = 1
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index 4444444..0000000
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old/name.go b/new/name.go
similarity index 100%
rename from old/name.go
rename to new/name.go
diff --git a/logo.png b/logo.png
index 5555555..6666666 100644
Binary files a/logo.png and b/logo.png differ
diff --git "a/sp ace.txt" "b/sp ace.txt"
index 7777777..8888888 100644
--- "a/sp ace.txt"
+++ "b/sp ace.txt"
@@ -3,0 +4 @@ header
+added after line 3
`

func TestParseDiff(t *testing.T) {
	files, err := parseDiff(gitDiff)
	if err != nil {
		t.Fatal(err)
	}
	var got []ChangedFile
	for _, f := range files {
		got = append(got, f.ChangedFile)
	}
	want := []ChangedFile{
		{Path: "app/db.lua", Status: "modified", Added: 1, Deleted: 2, Hunks: []LineRange{{1, 3}}},
		{Path: "new.go", Status: "added", Added: 2, Hunks: []LineRange{{1, 2}}},
		{Path: "gone.txt", Status: "deleted", Deleted: 1, Hunks: []LineRange{{1, 1}}},
		{Path: "new/name.go", OldPath: "old/name.go", Status: "renamed", Hunks: []LineRange{}},
		{Path: "logo.png", Status: "binary", Hunks: []LineRange{}},
		{Path: "sp ace.txt", Status: "modified", Added: 1, Hunks: []LineRange{{4, 4}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files:\n got %+v\nwant %+v", got, want)
	}
	a := annotate(files)
	for _, line := range []string{
		"File: app/db.lua (modified, +1 −2)",
		"    1   local db = {}",
		"      - -- old comment",
		"    2 + -- new comment",
		"    3   return db",
		"File: new.go (added, +2 −0)",
		"    2 + var y = 1",
		"File: new/name.go (renamed from old/name.go, +0 −0)",
		"File: logo.png (binary; its contents are not in the diff)",
		"@@ -3,0 +4 @@ header",
		"    4 + added after line 3",
	} {
		if !strings.Contains(a, line+"\n") {
			t.Errorf("annotated diff lacks %q:\n%s", line, a)
		}
	}
}

// diff -u, not git: a time after each path, no a/ b/ prefixes, CRLF line
// ends, and a blank unchanged line whose space an editor stripped.
func TestParseDiffPlain(t *testing.T) {
	d := "--- notes.txt\t2026-01-01 10:00:00\r\n+++ notes.txt\t2026-01-02 10:00:00\r\n@@ -1,3 +1,3 @@\r\n a\r\n\r\n-b\r\n+c\r\n"
	files, err := parseDiff(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "notes.txt" || files[0].Added != 1 || files[0].Deleted != 1 || files[0].Status != "modified" {
		t.Errorf("files = %+v", files)
	}
	if a := annotate(files); !strings.Contains(a, "    3 + c\n") {
		t.Errorf("annotated:\n%s", a)
	}
}

func TestParseDiffErrors(t *testing.T) {
	for _, c := range []struct{ name, diff, want string }{
		{"hunk before a file", "@@ -1 +1 @@\n-a\n+b\n", "line 1: a hunk comes before any file header"},
		{"cut short", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n", "ends inside the hunk at line 3, 3 lines short"},
		{"too long", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n", ""},
		{"bad header", "--- a/x\n+++ b/x\n@@ -1 +x @@\n", "cannot read the hunk header"},
		{"stray line", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n?b\n", "line 5: the hunk at line 3 ends before"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, err := parseDiff(c.diff)
			if c.want == "" {
				// Text after a hunk is passed over: "+c" after the hunk
				// ends is not a line of it.
				if err != nil || len(files) != 1 || files[0].Added != 1 {
					t.Errorf("files %+v, err %v", files, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestChangeValidate(t *testing.T) {
	ok := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
	for _, c := range []struct {
		name string
		ch   Change
		want string
	}{
		{"empty", Change{Diff: " \n"}, "the diff is empty"},
		{"binary", Change{Diff: ok + "\x00"}, "the diff is binary (it holds a NUL byte at offset 34)"},
		{"not UTF-8", Change{Diff: ok + "\xff"}, "the diff is not UTF-8 text"},
		{"binary patch", Change{Diff: "diff --git a/x b/x\nGIT binary patch\nliteral 3\n"}, "binary patch (git diff --binary)"},
		{"binary files only", Change{Diff: "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n"}, "every file the diff changes is binary (logo.png)"},
		{"not a diff", Change{Diff: "hello\nworld\n"}, "it has no file header"},
		{"broken", Change{Diff: "--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n"}, "not a valid unified diff"},
		{"too large", Change{Diff: ok, Context: []ContextFile{{Path: "big", Text: strings.Repeat("x", MaxChangeBytes)}}}, "more than the 1048576 (1 MiB) a review takes"},
		{"context without a path", Change{Diff: ok, Context: []ContextFile{{Text: "x"}}}, "context file 1 has no path"},
		{"binary context", Change{Diff: ok, Context: []ContextFile{{Path: "img", Text: "\x00"}}}, "the context file img is binary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.ch.Validate()
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	if err := (Change{Diff: "diff --git a/x b/x\n" + ok + "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n"}).Validate(); err != nil {
		t.Errorf("a binary file beside a text one: %v", err)
	}
	if err := (Change{Diff: ok, Context: []ContextFile{{Path: "doc.md", Text: "notes"}}}).Validate(); err != nil {
		t.Errorf("a valid change: %v", err)
	}
}

// Whatever the diff, parsing never panics, and what it reads adds up: the
// counts match the lines, hunks are ranges, added and unchanged lines
// have numbers in order.
func FuzzParseDiff(f *testing.F) {
	f.Add(gitDiff)
	f.Add("--- a\n+++ b\n@@ -1 +1,2 @@\n-x\n+y\n+z\n")
	f.Fuzz(func(t *testing.T, diff string) {
		files, err := parseDiff(diff)
		if err != nil {
			return
		}
		for _, fl := range files {
			added, deleted, last := 0, 0, 0
			for _, l := range fl.lines {
				switch l.kind {
				case '+':
					added++
				case '-':
					deleted++
				case '@':
					last = 0
				}
				if l.kind == '+' || l.kind == ' ' {
					if l.num < 0 || last != 0 && l.num != last+1 {
						t.Fatalf("line numbers out of order: %d after %d", l.num, last)
					}
					last = l.num
				}
			}
			if added != fl.Added || deleted != fl.Deleted {
				t.Fatalf("counted +%d −%d, lines +%d −%d", fl.Added, fl.Deleted, added, deleted)
			}
			for _, h := range fl.Hunks {
				if h.Start < 1 || h.End < h.Start {
					t.Fatalf("hunk %+v", h)
				}
			}
		}
		_ = annotate(files)
	})
}
