package quorum

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxChangeBytes bounds a change: its diff and context files together, 1
// MiB. Every model gets all of it in one prompt, and more than this fits
// no model's context; a change that large is refused, never cut, since a
// review of part of a change would pass what it never saw.
const MaxChangeBytes = 1 << 20

// Change is what Review reviews.
type Change struct {
	// Diff is a unified diff: git diff's output, or diff -u's.
	Diff string
	// Context are files that help to understand the change (the code it
	// calls, a design note); the models read them but do not review them.
	Context []ContextFile
}

// ContextFile is a file given as context.
type ContextFile struct {
	Path string
	Text string
}

// Validate checks that c can be reviewed: a unified diff that changes at
// least one text file, text only (no NUL bytes, UTF-8, no binary patch), and
// no more than MaxChangeBytes with its context files. Its errors wrap
// ErrInvalidConfig and say what to do.
func (c Change) Validate() error {
	size := len(c.Diff)
	for _, f := range c.Context {
		size += len(f.Text)
	}
	if size > MaxChangeBytes {
		return invalid("the change is %d bytes with its context files, more than the %d (1 MiB) a review takes; review a smaller range, or leave out context files", size, MaxChangeBytes)
	}
	if strings.TrimSpace(c.Diff) == "" {
		return invalid("the diff is empty: there is nothing to review")
	}
	if err := textual("the diff", c.Diff); err != nil {
		return err
	}
	if strings.Contains(c.Diff, "\nGIT binary patch\n") || strings.HasPrefix(c.Diff, "GIT binary patch\n") {
		return invalid("the diff holds a binary patch (git diff --binary); binary files cannot be reviewed: make the diff without --binary")
	}
	files, err := parseDiff(c.Diff)
	if err != nil {
		return invalid("the diff is not a valid unified diff: %v", err)
	}
	if len(files) == 0 {
		return invalid(`the diff is not a unified diff: it has no file header ("diff --git", or "---" and "+++" lines); make it with git diff or diff -u`)
	}
	var binary []string
	for _, f := range files {
		if f.Status == "binary" {
			binary = append(binary, f.Path)
		}
	}
	if len(binary) == len(files) {
		return invalid("every file the diff changes is binary (%s): the diff leaves out their contents, so there is nothing a model can review", strings.Join(binary, ", "))
	}
	for i, f := range c.Context {
		if strings.TrimSpace(f.Path) == "" {
			return invalid("context file %d has no path", i+1)
		}
		if err := textual("the context file "+f.Path, f.Text); err != nil {
			return err
		}
	}
	return nil
}

// Summary describes c as a review's result will: its files, lines added
// and deleted, and context files. It fails as Validate does on a diff it
// cannot read.
func (c Change) Summary() (ChangeSummary, error) {
	files, err := parseDiff(c.Diff)
	if err != nil {
		return ChangeSummary{}, invalid("the diff is not a valid unified diff: %v", err)
	}
	s := summarise(files, c.Context)
	s.Files = nonNil(s.Files)
	return s, nil
}

// textual refuses binary text: a model cannot review it, and it would
// reach the terminal in the report.
func textual(what, s string) error {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return invalid("%s is binary (it holds a NUL byte at offset %d); only text can be reviewed", what, i)
	}
	if !utf8.ValidString(s) {
		return invalid("%s is not UTF-8 text; only text can be reviewed (convert it first, for example with iconv)", what)
	}
	return nil
}

// summarise describes a change for the result.
func summarise(files []diffFile, context []ContextFile) ChangeSummary {
	s := ChangeSummary{Files: make([]ChangedFile, len(files)), Context: make([]string, len(context))}
	for i, f := range files {
		s.Files[i] = f.ChangedFile
		s.Added += f.Added
		s.Deleted += f.Deleted
	}
	for i, f := range context {
		s.Context[i] = f.Path
	}
	return s
}

// fileLine is a changed file as the prompt lists it: "- app/db.go
// (modified, +12 −3)".
func fileLine(f ChangedFile) string {
	var s string
	switch f.Status {
	case "binary":
		s = "binary; its contents are not in the diff"
	case "renamed":
		s = fmt.Sprintf("renamed from %s, +%d −%d", f.OldPath, f.Added, f.Deleted)
	default:
		s = fmt.Sprintf("%s, +%d −%d", f.Status, f.Added, f.Deleted)
	}
	return fmt.Sprintf("%s (%s)", f.Path, s)
}
