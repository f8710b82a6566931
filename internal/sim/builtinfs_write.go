package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The built-in create and edit tools: a new file, or the one occurrence of
// a string replaced, written through the folder's os.Root (builtinfs.go),
// with the diffs CLI 1.0.102 shows.

// planCreate fails, without asking, a create of a path that exists or
// whose parent folder does not (as CLI 1.0.102 does); else it asks the
// write permission ("Create file", the diff, the new contents) and then
// creates the file. A path outside the folder is asked about from the
// arguments alone — nothing outside is looked at — and then refused.
func planCreate(f folder, callID string, a createArgs) (builtinPlan, *toolFailure) {
	t := f.resolve(a.Path)
	if t.inside {
		if fail := canCreate(f, t); fail != nil {
			return builtinPlan{}, fail
		}
	}
	diff := createDiff(t.shown, a.FileText)
	edits := []protocol.PermissionWriteFileEdit{{After: &protocol.PermissionWriteFileContent{Path: t.shown, Content: a.FileText}}}
	return builtinPlan{
		request: protocol.PermissionRequestWrite{Kind: "write", ToolCallID: callID, Intention: "Create file", FileName: t.shown,
			Diff: diff, NewFileContents: a.FileText, FileEdits: edits, CanOfferSessionApproval: true},
		prompt: protocol.PermissionPromptRequestWrite{Kind: "write", ToolCallID: callID, Intention: "Create file", FileName: t.shown,
			Diff: diff, NewFileContents: a.FileText, FileEdits: edits, CanOfferSessionApproval: true},
		run: func(context.Context) (builtinOutput, *toolFailure) {
			if !t.inside {
				return builtinOutput{}, outside(f, t)
			}
			if fail := create(f, t, a.FileText); fail != nil {
				return builtinOutput{}, fail
			}
			return builtinOutput{
				text: fmt.Sprintf("Created file %s with %d characters", t.shown, jsLength(a.FileText)),
				done: completion{detailed: diff, fileEdits: []protocol.ToolExecutionCompleteFileEdit{{Path: t.shown, Kind: protocol.ToolExecutionCompleteFileEditKindCreate}}},
			}, nil
		},
	}, nil
}

// canCreate says why t cannot be created, in CLI 1.0.102's words.
func canCreate(f folder, t target) *toolFailure {
	root, fail := f.open()
	if fail != nil {
		return fail
	}
	defer root.Close()
	if _, err := root.Lstat(t.rel); err == nil {
		return failed("Path already exists", fmt.Sprintf("Path %s already exists as a file. Use `view` to check contents then edit it.", t.shown))
	}
	parent := filepath.Dir(t.shown)
	if st, err := root.Stat(filepath.Dir(t.rel)); err != nil || !st.IsDir() {
		return failed("Parent directory does not exist", fmt.Sprintf("Parent directory %s does not exist. You need to create it before creating the file.", parent))
	}
	return nil
}

// create writes a new file, refusing one that appeared meanwhile.
func create(f folder, t target, text string) *toolFailure {
	if fail := canCreate(f, t); fail != nil {
		return fail
	}
	root, fail := f.open()
	if fail != nil {
		return fail
	}
	defer root.Close()
	file, err := root.OpenFile(t.rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return failed(err.Error(), "")
	}
	_, err = io.WriteString(file, text)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return failed(err.Error(), "")
	}
	return nil
}

// planEdit fails, without asking, an edit of a file that cannot be read or
// in which old_str does not occur exactly once (as CLI 1.0.102 does); else
// it asks the write permission ("Edit file", the diff, the contents before
// and after) and then writes the change, found again in the file as it is
// by then. A path outside the folder is asked about from the arguments
// alone — nothing outside is read — and then refused.
func planEdit(f folder, callID string, a editArgs) (builtinPlan, *toolFailure) {
	t := f.resolve(a.Path)
	var req protocol.PermissionRequestWrite
	if t.inside {
		before, after, fail := edited(f, t, a)
		if fail != nil {
			return builtinPlan{}, fail
		}
		req = protocol.PermissionRequestWrite{Diff: editDiff(t.shown, before, after), NewFileContents: after,
			FileEdits: []protocol.PermissionWriteFileEdit{{
				Before: &protocol.PermissionWriteFileContent{Path: t.shown, Content: before},
				After:  &protocol.PermissionWriteFileContent{Path: t.shown, Content: after},
			}}}
	} else {
		req = protocol.PermissionRequestWrite{Diff: editDiff(t.shown, a.OldStr, a.NewStr)}
	}
	req.Kind, req.ToolCallID, req.Intention, req.FileName, req.CanOfferSessionApproval = "write", callID, "Edit file", t.shown, true
	return builtinPlan{
		request: req,
		prompt: protocol.PermissionPromptRequestWrite{Kind: "write", ToolCallID: callID, Intention: req.Intention, FileName: t.shown,
			Diff: req.Diff, NewFileContents: req.NewFileContents, FileEdits: req.FileEdits, CanOfferSessionApproval: true},
		run: func(context.Context) (builtinOutput, *toolFailure) {
			if !t.inside {
				return builtinOutput{}, outside(f, t)
			}
			before, after, fail := edited(f, t, a)
			if fail != nil {
				return builtinOutput{}, fail
			}
			if fail := rewrite(f, t, after); fail != nil {
				return builtinOutput{}, fail
			}
			return builtinOutput{
				text: fmt.Sprintf("File %s updated with changes.", t.shown),
				done: completion{detailed: editDiff(t.shown, before, after), fileEdits: []protocol.ToolExecutionCompleteFileEdit{{Path: t.shown, Kind: protocol.ToolExecutionCompleteFileEditKindEdit}}},
			}, nil
		},
	}, nil
}

// edited reads t and returns its contents before and after the edit, or
// why the edit cannot be made, in CLI 1.0.102's words.
func edited(f folder, t target, a editArgs) (before, after string, fail *toolFailure) {
	root, fail := f.open()
	if fail != nil {
		return "", "", fail
	}
	defer root.Close()
	b, err := root.ReadFile(t.rel)
	if err != nil {
		cause := "Error: " + err.Error()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			cause = fmt.Sprintf("Error: ENOENT: no such file or directory, open '%s'", t.shown)
		case isDir(root, t.rel):
			cause = "Error: EISDIR: illegal operation on a directory, read"
		}
		// The arguments as JavaScript's JSON.stringify writes them: no
		// HTML escaping, no trailing newline.
		var args strings.Builder
		enc := json.NewEncoder(&args)
		enc.SetEscapeHTML(false)
		enc.Encode(struct {
			editArgs
			Command string `json:"command"`
		}{a, ToolEdit})
		return "", "", failed("Unhandled error: "+cause, fmt.Sprintf("Failed to execute with arguments: %s due to error: %s", strings.TrimSuffix(args.String(), "\n"), cause))
	}
	before = string(b)
	switch n := strings.Count(before, a.OldStr); {
	case n == 0:
		return "", "", failed("No match found", fmt.Sprintf("No match found: old_str not found in %s; no changes made; you might want to try again with correct old_str", t.shown))
	case n > 1:
		first, _, _ := strings.Cut(a.OldStr, "\n")
		return "", "", failed("Multiple matches found", fmt.Sprintf("Ambiguous match for old_str in %s: pattern starting with %q matched at lines %s. No changes made; try again with a more specific old_str.",
			t.shown, first, matchLines(before, a.OldStr)))
	}
	return before, strings.Replace(before, a.OldStr, a.NewStr, 1), nil
}

// matchLines lists the lines (from 1) where each occurrence of sub in s
// starts: "1, 2".
func matchLines(s, sub string) string {
	var lines []string
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 || sub == "" {
			break
		}
		lines = append(lines, strconv.Itoa(strings.Count(s[:i+j], "\n")+1))
		i += j + len(sub)
	}
	return strings.Join(lines, ", ")
}

// rewrite replaces the contents of the existing file t.
func rewrite(f folder, t target, text string) *toolFailure {
	root, fail := f.open()
	if fail != nil {
		return fail
	}
	defer root.Close()
	file, err := root.OpenFile(t.rel, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return failed(err.Error(), "")
	}
	_, err = io.WriteString(file, text)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return failed(err.Error(), "")
	}
	return nil
}

// createDiff is the diff CLI 1.0.102 shows for a new file: every line
// added (a final newline ends the last line rather than starting another).
func createDiff(name, text string) string {
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") || text == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ndiff --git a%s b%s\ncreate file mode 100644\nindex 0000000..0000000\n--- a/dev/null\n+++ b%s\n@@ -1,0 +1,%d @@\n", name, name, name, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// editDiff is the diff CLI 1.0.102 shows for an edit: one hunk over the
// whole file, the unchanged lines before and after the change as context
// (a final newline counts as an empty last line, as the CLI counts it).
func editDiff(name, before, after string) string {
	old, now := strings.Split(before, "\n"), strings.Split(after, "\n")
	pre := 0
	for pre < len(old) && pre < len(now) && old[pre] == now[pre] {
		pre++
	}
	post := 0
	for post < len(old)-pre && post < len(now)-pre && old[len(old)-1-post] == now[len(now)-1-post] {
		post++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ndiff --git a%s b%s\nindex 0000000..0000000 100644\n--- a%s\n+++ b%s\n@@ -1,%d +1,%d @@\n", name, name, name, name, len(old), len(now))
	for _, l := range old[:pre] {
		b.WriteString(" " + l + "\n")
	}
	for _, l := range old[pre : len(old)-post] {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range now[pre : len(now)-post] {
		b.WriteString("+" + l + "\n")
	}
	for _, l := range old[len(old)-post:] {
		b.WriteString(" " + l + "\n")
	}
	return b.String()
}
