package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The built-in view tool: a file read whole or by lines, or a folder listed,
// through the folder's os.Root (builtinfs.go).

// maxViewWhole is the largest file view returns whole: CLI 1.0.102 answers
// a larger one, without view_range, that it is too large.
const maxViewWhole = 20 << 10

// maxViewBytes bounds what the simulator reads of one file (view with
// view_range, cat), so a large file cannot swell a turn.
const maxViewBytes = 1 << 20

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

// isDir reports whether rel is a folder in root.
func isDir(root *os.Root, rel string) bool {
	st, err := root.Stat(rel)
	return err == nil && st.IsDir()
}
