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
	"slices"
	"strconv"
	"strings"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The built-in file tools (view, create, edit), confined to the session's
// folder. The simulator ships in the quorum binary, so a scripted model —
// or a bug — must not be able to read or write anything else, whatever the
// client approved: every path is resolved (symlinks included) before it is
// asked about, and every file is then opened through an os.Root of the
// folder, which refuses a path that leaves it — by "..", or by a symlink
// swapped in after the check.

// maxViewWhole is the largest file view returns whole: CLI 1.0.102 answers
// a larger one, without view_range, that it is too large.
const maxViewWhole = 20 << 10

// maxViewBytes bounds what the simulator reads of one file (view with
// view_range, cat), so a large file cannot swell a turn.
const maxViewBytes = 1 << 20

// folder is a session's working directory, where its built-in tools act.
type folder struct {
	dir  string // as the session named it, cleaned
	real string // with every symlink resolved
}

// noFolderMessage fails a built-in tool of a session created without a
// workingDirectory: the real CLI would act in its own working directory,
// which the simulator never touches.
const noFolderMessage = "No working directory"

// folder returns the session's folder, or why its tools cannot act.
func (s *session) folder() (folder, *toolFailure) {
	if s.cwd == "" {
		return folder{}, failed(noFolderMessage, "The simulated Copilot CLI runs its built-in tools only inside the session's working directory, and this session was created without one (session.create's workingDirectory).")
	}
	dir := filepath.Clean(s.cwd)
	if !filepath.IsAbs(dir) {
		return folder{}, failed(noFolderMessage, fmt.Sprintf("The session's working directory %s is not an absolute path.", s.cwd))
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return folder{}, failed(noFolderMessage, fmt.Sprintf("The session's working directory %s cannot be used: %v", s.cwd, err))
	}
	return folder{dir: dir, real: real}, nil
}

// target is a path a tool call names, resolved in a folder.
type target struct {
	// shown is the path as the model named it, made absolute against the
	// folder and cleaned: what requests and results show, as on the CLI.
	shown string
	// rel is where it leads, relative to the folder's real path, for the
	// folder's os.Root ("." for the folder itself); valid when inside.
	rel    string
	inside bool
}

// resolve resolves p (absolute, or relative to the folder) in f: the
// longest prefix of it that exists has its symlinks resolved
// (filepath.EvalSymlinks), the rest is appended, and the result must lie
// in the folder's real path. A prefix that exists but cannot be resolved
// (a dangling symlink) counts as outside: where it would lead is unknown.
func (f folder) resolve(p string) target {
	shown := p
	if !filepath.IsAbs(shown) {
		shown = filepath.Join(f.dir, shown)
	}
	shown = filepath.Clean(shown)
	t := target{shown: shown}
	cur, rest := shown, []string{}
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			real = filepath.Join(append([]string{real}, rest...)...)
			rel, err := filepath.Rel(f.real, real)
			if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.rel, t.inside = rel, true
			}
			return t
		}
		if _, lerr := os.Lstat(cur); lerr == nil {
			return t // it exists yet cannot be resolved
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return t
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// outside is the refusal of a path outside the folder: the simulator acts
// only inside it, even when the client approved.
func outside(f folder, t target) *toolFailure {
	return &toolFailure{
		code:     "denied",
		message:  "Path is outside the working directory",
		llm:      fmt.Sprintf("Path %s is outside the session's working directory %s: the simulated Copilot CLI reads and writes files only inside it.", t.shown, f.dir),
		executed: true,
	}
}

// open opens the folder as an os.Root, the only way the file tools reach
// files.
func (f folder) open() (*os.Root, *toolFailure) {
	root, err := os.OpenRoot(f.real)
	if err != nil {
		return nil, failed(noFolderMessage, fmt.Sprintf("The session's working directory %s cannot be used: %v", f.dir, err))
	}
	return root, nil
}

// planView asks the read permission CLI 1.0.102 asks for view ("Read
// file: P", or "List directory: P" for a folder) and then reads the file —
// whole up to 20 KB, else the lines of view_range, [first, last] from 1
// with last -1 (or none) for the end — or lists the folder's entries,
// sorted, one level, hidden ones included, as the CLI does.
func planView(f folder, callID string, a viewArgs) (builtinPlan, *toolFailure) {
	t := f.resolve(a.Path)
	intention := "Read file: " + t.shown
	if t.inside {
		if root, fail := f.open(); fail == nil {
			if st, err := root.Stat(t.rel); err == nil && st.IsDir() {
				intention = "List directory: " + t.shown
			}
			root.Close()
		}
	}
	req := protocol.PermissionRequestRead{Kind: "read", ToolCallID: callID, Intention: intention, Path: t.shown}
	return builtinPlan{
		request: req,
		prompt:  protocol.PermissionPromptRequestRead{Kind: "read", ToolCallID: callID, Intention: intention, Path: t.shown},
		run: func(context.Context) (builtinOutput, *toolFailure) {
			if !t.inside {
				return builtinOutput{}, outside(f, t)
			}
			text, fail := view(f, t, a.ViewRange)
			return builtinOutput{text: text}, fail
		},
	}, nil
}

// view reads t for the view tool.
func view(f folder, t target, lines []int) (string, *toolFailure) {
	root, fail := f.open()
	if fail != nil {
		return "", fail
	}
	defer root.Close()
	file, err := root.Open(t.rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", failed("Path does not exist", fmt.Sprintf("Path %s does not exist. Please provide a valid path.", t.shown))
	}
	if err != nil {
		return "", failed(err.Error(), "")
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return "", failed(err.Error(), "")
	}
	if st.IsDir() {
		entries, err := file.ReadDir(-1)
		if err != nil {
			return "", failed(err.Error(), "")
		}
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		slices.Sort(names)
		return strings.Join(names, "\n"), nil
	}
	if len(lines) == 0 && st.Size() > maxViewWhole {
		return fmt.Sprintf("File too large to read at once (%.1f KB). Consider using the grep tool to search within the file, or view with view_range to read specific sections.", float64(st.Size())/1024), nil
	}
	b, err := io.ReadAll(io.LimitReader(file, maxViewBytes))
	if err != nil {
		return "", failed(err.Error(), "")
	}
	text := string(b)
	if len(lines) == 0 {
		return text, nil
	}
	// The lines as CLI 1.0.102 counts them: a final newline ends an empty
	// last line. A range past the end is cut short.
	all := strings.Split(text, "\n")
	first, last := lines[0], len(all)
	if len(lines) > 1 && lines[1] != -1 {
		last = lines[1]
	}
	switch {
	case first < 1:
		return "", failed("Invalid view_range", fmt.Sprintf("Invalid view_range: start line (%d) must be greater than or equal to 1.", first))
	case first > len(all):
		return "", failed("view_range out of bounds", fmt.Sprintf("Invalid view_range: start line (%d) is beyond the end of the file. The file has %d lines.", first, len(all)))
	case last < first:
		return "", failed("Invalid view_range", fmt.Sprintf("Invalid view_range: end line (%d) must be greater than or equal to start line (%d).", last, first))
	}
	return strings.Join(all[first-1:min(last, len(all))], "\n"), nil
}

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

// isDir reports whether rel is a folder in root.
func isDir(root *os.Root, rel string) bool {
	st, err := root.Stat(rel)
	return err == nil && st.IsDir()
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
