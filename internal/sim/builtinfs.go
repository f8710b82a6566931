package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The built-in file tools (view, create, edit), confined to the session's
// folder. The simulator ships in the quorum binary, so a scripted model —
// or a bug — must not be able to read or write anything else, whatever the
// client approved: every path is resolved (symlinks included) before it is
// asked about, and every file is then opened through an os.Root of the
// folder, which refuses a path that leaves it — by "..", or by a symlink
// swapped in after the check.

// folder is a session's working directory, where its built-in tools act.
type folder struct {
	dir  string // as the session named it, cleaned
	real string // with every symlink resolved
	// denied are the paths a sandbox hides from the session's commands
	// (sandboxDenied), resolved; nil without a sandbox.
	denied []string
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
