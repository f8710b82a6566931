package quorum

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file reads unified diffs: git diff's (with its extended headers:
// new and deleted files, renames, binary files) and diff -u's. It knows
// where each hunk's lines end by the counts in its header, so a deleted
// line that starts with "--" is not taken for a file header.

// diffFile is one file of a diff, with its lines.
type diffFile struct {
	ChangedFile
	lines []diffLine
	// headed is set once the file's ---/+++ lines were read: the next
	// such pair starts another file.
	headed bool
}

// diffLine is a line of a file's hunks.
type diffLine struct {
	// kind is '+' (added), '-' (deleted), ' ' (unchanged), '@' (a hunk
	// header, whose text is the header) or '\\' (git's "\ No newline at
	// end of file").
	kind byte
	// num is the line's number in the new file, for '+' and ' '.
	num  int
	text string
}

var hunkRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$`)

// parseDiff reads a unified diff. It fails on a hunk outside any file, a
// hunk header it cannot read, and a hunk cut short; text between files
// (a commit message, "Only in …") is passed over.
func parseDiff(text string) ([]diffFile, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var files []diffFile
	var cur *diffFile
	oldLeft, newLeft, num, hunkAt := 0, 0, 0, 0
	start := func() *diffFile {
		files = append(files, diffFile{ChangedFile: ChangedFile{Status: "modified"}})
		return &files[len(files)-1]
	}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSuffix(lines[i], "\r")
		if oldLeft > 0 || newLeft > 0 {
			kind := byte(' ') // an empty line is an unchanged one whose space an editor stripped
			if line != "" {
				kind = line[0]
			}
			switch kind {
			case ' ':
				num++
				oldLeft--
				newLeft--
			case '+':
				num++
				newLeft--
			case '-':
				oldLeft--
			case '\\':
			default:
				return nil, fmt.Errorf("line %d: the hunk at line %d ends before the %d lines its header counts", i+1, hunkAt, oldLeft+newLeft)
			}
			if oldLeft < 0 || newLeft < 0 {
				return nil, fmt.Errorf("line %d: the hunk at line %d has more lines than its header counts", i+1, hunkAt)
			}
			dl := diffLine{kind: kind, text: strings.TrimPrefix(line, string(kind))}
			if kind == '+' || kind == ' ' {
				dl.num = num
				if kind == '+' {
					cur.Added++
				}
			}
			if kind == '-' {
				cur.Deleted++
			}
			cur.lines = append(cur.lines, dl)
			continue
		}
		switch {
		case strings.HasPrefix(line, `\ `) && cur != nil:
			cur.lines = append(cur.lines, diffLine{kind: '\\', text: line[2:]})
		case strings.HasPrefix(line, "diff --git "):
			cur = start()
			a, b := gitPaths(line[len("diff --git "):])
			cur.OldPath, cur.Path = a, b
		case strings.HasPrefix(line, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			if cur == nil || cur.headed {
				cur = start()
			}
			cur.headed = true
			old, neu := diffPath(line[4:]), diffPath(strings.TrimSuffix(lines[i+1], "\r")[4:])
			if strings.HasPrefix(old, "a/") && (strings.HasPrefix(neu, "b/") || neu == devNull) || old == devNull && strings.HasPrefix(neu, "b/") {
				old, neu = strings.TrimPrefix(old, "a/"), strings.TrimPrefix(neu, "b/")
			}
			switch {
			case old == devNull:
				cur.Status, cur.Path, cur.OldPath = "added", neu, ""
			case neu == devNull:
				cur.Status, cur.Path, cur.OldPath = "deleted", old, ""
			default:
				cur.Path, cur.OldPath = neu, old
			}
			i++
		case strings.HasPrefix(line, "@@"):
			if cur == nil {
				return nil, fmt.Errorf("line %d: a hunk comes before any file header", i+1)
			}
			m := hunkRE.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("line %d: cannot read the hunk header %q", i+1, cutRunes(line, 60))
			}
			oldLeft, newLeft = count(m[2]), count(m[4])
			newStart, _ := strconv.Atoi(m[3])
			num, hunkAt = newStart-1, i+1
			if newLeft == 0 {
				num = newStart // a hunk that only deletes names the line before
			}
			r := LineRange{Start: max(newStart, 1), End: max(newStart+newLeft-1, newStart, 1)}
			cur.Hunks = append(cur.Hunks, r)
			cur.lines = append(cur.lines, diffLine{kind: '@', text: line})
		case cur == nil:
		case strings.HasPrefix(line, "new file mode"):
			cur.Status = "added"
		case strings.HasPrefix(line, "deleted file mode"):
			cur.Status = "deleted"
		case strings.HasPrefix(line, "rename from "):
			cur.Status, cur.OldPath = "renamed", unquotePath(line[len("rename from "):])
		case strings.HasPrefix(line, "rename to "):
			cur.Status, cur.Path = "renamed", unquotePath(line[len("rename to "):])
		case strings.HasPrefix(line, "Binary files ") && strings.HasSuffix(line, " differ"):
			cur.Status = "binary"
		}
	}
	if oldLeft > 0 || newLeft > 0 {
		return nil, fmt.Errorf("the diff ends inside the hunk at line %d, %d lines short: it was cut", hunkAt, oldLeft+newLeft)
	}
	for i := range files {
		f := &files[i]
		if f.Status == "modified" && f.OldPath != "" && f.OldPath != f.Path {
			f.Status = "renamed"
		}
		if f.Status != "renamed" {
			f.OldPath = ""
		}
		if f.Path == "" {
			f.Path = f.OldPath
		}
		if f.Hunks == nil {
			f.Hunks = []LineRange{}
		}
	}
	return files, nil
}

const devNull = "/dev/null"

// count reads a hunk header's line count, which is 1 when left out.
func count(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// diffPath reads the path of a ---/+++ line: diff -u puts a tab and a
// time after it, git may quote it.
func diffPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return unquotePath(strings.TrimSpace(s))
}

// unquotePath reads a path git quoted because of unusual characters.
func unquotePath(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// gitPaths reads the two paths of a "diff --git a/x b/y" line, without
// their prefixes. The ---/+++ lines, when present, say it better; this
// is for files that have none (binary, renamed as is, mode changes).
func gitPaths(s string) (string, string) {
	if strings.HasPrefix(s, `"`) {
		if end := strings.Index(s[1:], `" `); end >= 0 {
			return strings.TrimPrefix(unquotePath(s[:end+2]), "a/"), strings.TrimPrefix(unquotePath(strings.TrimSpace(s[end+3:])), "b/")
		}
	}
	if i := strings.LastIndex(s, " b/"); i >= 0 {
		return strings.TrimPrefix(s[:i], "a/"), s[i+3:]
	}
	return s, s
}

// annotate renders the files of a diff for a reviewer: a "File:" line
// each, then every hunk line with its number in the new file, so a model
// need not count lines to say where a problem is.
func annotate(files []diffFile) string {
	var b strings.Builder
	for i, f := range files {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "File: %s\n", fileLine(f.ChangedFile))
		for _, l := range f.lines {
			switch l.kind {
			case '@':
				b.WriteString(l.text)
			case '+':
				fmt.Fprintf(&b, "%5d + %s", l.num, l.text)
			case ' ':
				fmt.Fprintf(&b, "%5d   %s", l.num, l.text)
			case '-':
				fmt.Fprintf(&b, "%5s - %s", "", l.text)
			default:
				fmt.Fprintf(&b, "%5s \\ %s", "", l.text)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}
