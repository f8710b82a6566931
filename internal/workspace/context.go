package workspace

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// A Source is one thing read for the plan's context: a file of the
// repository at HEAD, the file tree, the recent history, or a file the user
// named. Text is what the models read.
type Source struct {
	// Path names it: a repository path ("README.md"), or "(file tree)" and
	// "(git log -5 --oneline)" for the two that are not files.
	Path string
	Text string
	// Size is the whole source's size in bytes; Text is shorter when the
	// budget cut it (Truncated).
	Size      int
	Truncated bool
}

// Names of the two sources that are not files.
const (
	SourceTree = "(file tree)"
	SourceLog  = "(git log -5 --oneline)"
)

// newcomerFiles are what a newcomer reads first, in that order: the
// project's own description and rules for contributors and agents, then
// its build files. Matched case-insensitively at the repository's top,
// except the one under .github.
var newcomerFiles = []string{
	"README.md", "README", "README.rst", "README.txt",
	"CONTRIBUTING.md", "AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md",
	"go.mod", "package.json", "Cargo.toml", "pyproject.toml", "setup.py", "requirements.txt",
	"pom.xml", "build.gradle", "build.gradle.kts", "Gemfile", "composer.json", "mix.exs",
	"CMakeLists.txt", "Makefile", "meson.build", "deno.json", "tsconfig.json",
}

// maxTreeEntries bounds the file tree's listing; past it the tree says how
// many more there are.
const maxTreeEntries = 2000

// Gather reads what a newcomer would read of r at HEAD, within budget bytes
// of text in all: the newcomer files that exist, the file tree (what git
// tracks, so nothing git ignores), and git log -5 --oneline. A source that
// does not fit whole is cut to what is left and marked Truncated; once the
// budget is spent, the rest are not read. Files that are not UTF-8 text are
// left out. Nothing is read from the working tree: HEAD is what the
// worktree will hold.
func (r *Repo) Gather(ctx context.Context, budget int) ([]Source, error) {
	listing, err := gitBytes(ctx, r.Top, "ls-tree", "-r", "-z", "--name-only", "--full-tree", r.Head)
	if err != nil {
		return nil, fmt.Errorf("workspace: listing the repository's files: %w", err)
	}
	var tracked []string
	for _, p := range strings.Split(string(listing), "\x00") {
		if p != "" {
			tracked = append(tracked, p)
		}
	}
	sort.Strings(tracked)
	byLower := make(map[string]string, len(tracked))
	for _, p := range tracked {
		if _, dup := byLower[strings.ToLower(p)]; !dup {
			byLower[strings.ToLower(p)] = p
		}
	}

	var out []Source
	left := budget
	add := func(s Source) {
		s.Size = len(s.Text)
		if s.Size > left {
			s.Text = cutUTF8(s.Text, left)
			s.Truncated = true
			left = len(s.Text) // the budget is spent: what follows is not read
		}
		left -= len(s.Text)
		out = append(out, s)
	}
	seen := make(map[string]bool)
	for _, name := range newcomerFiles {
		p, ok := byLower[strings.ToLower(name)]
		if !ok || seen[p] || left <= 0 {
			continue
		}
		seen[p] = true
		text, err := gitBytes(ctx, r.Top, "show", r.Head+":"+p)
		if err != nil {
			return nil, fmt.Errorf("workspace: reading %s at HEAD: %w", p, err)
		}
		if !isText(text) {
			continue
		}
		add(Source{Path: p, Text: string(text)})
	}
	if left > 0 {
		add(Source{Path: SourceTree, Text: tree(tracked)})
	}
	if left > 0 {
		log, err := git(ctx, r.Top, "log", "-5", "--oneline", "--no-decorate", "--no-color", r.Head)
		if err != nil {
			return nil, fmt.Errorf("workspace: reading the recent history: %w", err)
		}
		add(Source{Path: SourceLog, Text: log})
	}
	return out, nil
}

// tree lists paths one a line, up to maxTreeEntries.
func tree(paths []string) string {
	var b strings.Builder
	for i, p := range paths {
		if i == maxTreeEntries {
			fmt.Fprintf(&b, "… and %d more files\n", len(paths)-i)
			break
		}
		b.WriteString(p)
		b.WriteByte('\n')
	}
	return b.String()
}

// isText reports whether b reads as text: UTF-8, with no NUL byte.
func isText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b), 0)
}

// cutUTF8 returns s cut to at most n bytes, never inside a character.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
