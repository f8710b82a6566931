package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The built-in bash tool. The simulator ships in the quorum binary, so it
// never runs a command a model asks for: it reads the command the way a
// shell would (words, quotes, operators), asks the shell permission CLI
// 1.0.102 asks, and then plays a few harmless commands itself, inside the
// session's folder — ls, pwd, cat, echo in Go; git status, git diff and git
// log --oneline by running git there, with nothing that would let a
// repository's configuration run a program. Any other command, or one
// with pipes, redirections, variables or globs, is answered "not run".

// planBash asks the shell permission CLI 1.0.102 asks — the command and
// its segments, the description as intention ("Running command" without
// one), and, as 1.0.102 sends them, possiblePaths and possibleUrls empty
// and hasWriteFileRedirection and canOfferSessionApproval false whatever
// the command (the paths are in tool.execution_start's shellToolInfo) —
// and then plays the command, if it is one the simulator plays.
func (s *session) planBash(f folder, callID string, a bashArgs) builtinPlan {
	intention := a.Description
	if intention == "" {
		intention = builtinTitles[ToolBash]
	}
	sc := parseShell(a.Command)
	segments := sc.segments
	if segments == nil {
		segments = []protocol.PermissionRequestShellCommandSegment{}
	}
	return builtinPlan{
		request: protocol.PermissionRequestShell{
			Kind: "shell", ToolCallID: callID, FullCommandText: a.Command, Intention: intention,
			Commands:        []protocol.PermissionRequestShellCommand{{Identifier: a.Command, ReadOnly: false}},
			CommandSegments: segments,
			PossiblePaths:   []string{}, PossibleUrls: []protocol.PermissionRequestShellPossibleURL{},
		},
		prompt: protocol.PermissionPromptRequestCommands{
			Kind: "commands", ToolCallID: callID, FullCommandText: a.Command, Intention: intention,
			CommandIdentifiers: []string{a.Command},
		},
		run: func(ctx context.Context) (builtinOutput, *toolFailure) {
			output, code, fail := playShell(ctx, f, sc.simple)
			if fail != nil {
				if fail.message == notRunMessage {
					fail.llm = fmt.Sprintf("The simulated Copilot CLI did not run `%s`: it plays only %s, inside the session's working directory, and never runs other commands.", a.Command, playedCommands)
				}
				return builtinOutput{}, fail
			}
			id := s.nextShellID()
			text := output
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			text += fmt.Sprintf("<shellId: %s completed with exit code %d>", id, code)
			exit := int64(code)
			return builtinOutput{
				text:   text,
				shell:  true,
				output: output,
				done: completion{
					detailed: text,
					contents: []protocol.ToolExecutionCompleteContent{{Type: "shell_exit", ShellID: id, ExitCode: &exit, Cwd: f.dir, OutputPreview: output}},
					shell:    &protocol.ToolExecutionCompleteShellExecution{ExitCode: exit},
				},
			}, nil
		},
	}
}

// nextShellID numbers the session's commands, as the CLI's shellId.
func (s *session) nextShellID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := strconv.Itoa(s.shells)
	s.shells++
	return id
}

// notRunMessage fails a bash call of a command the simulator does not
// play.
const notRunMessage = "Command not run by the simulator"

// playedCommands names the commands the simulator plays, for the model.
const playedCommands = "ls [-a] [PATH…], pwd, cat FILE…, echo …, git status [--short], git diff [--stat] [--cached] and git log --oneline [-N]"

// playShell plays the simple command words in f: its output (stdout and
// stderr together) and exit code, or why it was not run.
func playShell(ctx context.Context, f folder, words []string) (string, int, *toolFailure) {
	notRun := failed(notRunMessage, "")
	if len(words) == 0 {
		return "", 0, notRun
	}
	args := words[1:]
	switch words[0] {
	case "pwd":
		if len(args) > 0 {
			return "", 0, notRun
		}
		return f.dir + "\n", 0, nil
	case "echo":
		if len(args) > 0 && args[0] == "-n" {
			return strings.Join(args[1:], " "), 0, nil
		}
		return strings.Join(args, " ") + "\n", 0, nil
	case "ls":
		return playLs(f, args)
	case "cat":
		return playCat(f, args)
	case "git":
		if gitArgs := gitPlayed(args); gitArgs != nil {
			return playGit(ctx, f, gitArgs)
		}
	}
	return "", 0, notRun
}

// playLs lists as ls does when its output is not a terminal: one name a
// line, sorted, hidden names only with -a (with . and ..) or -A.
func playLs(f folder, args []string) (string, int, *toolFailure) {
	all, almost := false, false
	var paths []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			for _, c := range a[1:] {
				switch c {
				case 'a':
					all = true
				case 'A':
					almost = true
				case '1':
				default:
					return "", 0, failed(notRunMessage, "")
				}
			}
			continue
		}
		paths = append(paths, a)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	root, fail := f.open()
	if fail != nil {
		return "", 0, fail
	}
	defer root.Close()
	var out strings.Builder
	code := 0
	for i, p := range paths {
		t := f.resolve(p)
		if !t.inside {
			return "", 0, outside(f, t)
		}
		seen := f.seen(t)
		st, err := root.Stat(t.rel)
		if err != nil || seen == seenAbsent {
			fmt.Fprintf(&out, "ls: cannot access '%s': No such file or directory\n", p)
			code = 2
			continue
		}
		if !st.IsDir() {
			out.WriteString(p + "\n")
			continue
		}
		entries, err := readDir(root, t.rel, p, seen)
		if err != nil {
			fmt.Fprintf(&out, "ls: %v\n", err)
			code = 2
			continue
		}
		var names []string
		if all {
			names = append(names, ".", "..")
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") && !all && !almost {
				continue
			}
			names = append(names, e.Name())
		}
		slices.Sort(names)
		if len(paths) > 1 {
			if i > 0 {
				out.WriteString("\n")
			}
			out.WriteString(p + ":\n")
		}
		for _, n := range names {
			out.WriteString(n + "\n")
		}
	}
	return out.String(), code, nil
}

// readDir lists the folder rel of root (shown, as the model named it) as
// a confined command sees it (a denied folder is empty), or says why ls
// cannot.
func readDir(root *os.Root, rel, shown string, seen sandboxView) ([]fs.DirEntry, error) {
	if seen == seenEmptyDir {
		return nil, nil
	}
	dir, err := root.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("cannot open directory '%s': %v", shown, err)
	}
	defer dir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("reading directory '%s': %v", shown, err)
	}
	return entries, nil
}

// playCat prints files as cat does, each at most maxViewBytes.
func playCat(f folder, args []string) (string, int, *toolFailure) {
	if len(args) == 0 {
		return "", 0, failed(notRunMessage, "") // it would read stdin
	}
	root, fail := f.open()
	if fail != nil {
		return "", 0, fail
	}
	defer root.Close()
	var out strings.Builder
	code := 0
	for _, p := range args {
		if strings.HasPrefix(p, "-") {
			return "", 0, failed(notRunMessage, "")
		}
		t := f.resolve(p)
		if !t.inside {
			return "", 0, outside(f, t)
		}
		file, err := root.Open(t.rel)
		switch f.seen(t) {
		case seenAbsent:
			if err == nil {
				file.Close()
			}
			err = fs.ErrNotExist
		case seenLocked:
			if err == nil {
				file.Close()
			}
			err = fs.ErrPermission
		}
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				fmt.Fprintf(&out, "cat: %s: Permission denied\n", p)
			} else if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(&out, "cat: %s: No such file or directory\n", p)
			} else {
				fmt.Fprintf(&out, "cat: %s: %v\n", p, err)
			}
			code = 1
			continue
		}
		if st, err := file.Stat(); err == nil && st.IsDir() {
			file.Close()
			fmt.Fprintf(&out, "cat: %s: Is a directory\n", p)
			code = 1
			continue
		}
		b, err := io.ReadAll(io.LimitReader(file, maxViewBytes))
		file.Close()
		out.Write(b)
		if err != nil {
			fmt.Fprintf(&out, "cat: %s: %v\n", p, err)
			code = 1
		}
	}
	return out.String(), code, nil
}
