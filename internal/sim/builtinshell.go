package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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

// gitTimeout bounds one simulated git command.
const gitTimeout = 30 * time.Second

// shellWord is one token of a command: a word (op empty) or an operator.
type shellWord struct {
	text string // the word with its quotes removed
	raw  string // as written
	op   string // "&&", "||", "|", ";", "&", "\n", "(", ")", ">", ">>", "<", ">&"
	// plain says the shell would take the word as it is: nothing in it
	// that expands (unquoted $ ` * ? [ ~ { ! #, or $ ` inside double
	// quotes).
	plain bool
}

// lexShell splits cmd into words and operators as a POSIX shell does,
// closely enough to describe the command and to tell a simple one; ok is
// false for an unterminated quote.
func lexShell(cmd string) (words []shellWord, ok bool) {
	i := 0
	for i < len(cmd) {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '\n' || c == ';' || c == '(' || c == ')':
			words = append(words, shellWord{op: string(c), raw: string(c)})
			i++
			continue
		case c == '&' || c == '|':
			op := string(c)
			if i+1 < len(cmd) && cmd[i+1] == c {
				op += string(c)
			}
			words = append(words, shellWord{op: op, raw: op})
			i += len(op)
			continue
		case c == '>' || c == '<':
			op := string(c)
			if c == '>' && i+1 < len(cmd) && (cmd[i+1] == '>' || cmd[i+1] == '&') {
				op += string(cmd[i+1])
			}
			words = append(words, shellWord{op: op, raw: op})
			i += len(op)
			continue
		}
		// A word: up to the next blank or operator outside quotes.
		start := i
		var text strings.Builder
		plain := true
	word:
		for i < len(cmd) {
			c := cmd[i]
			switch c {
			case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
				break word
			case '\'':
				end := strings.IndexByte(cmd[i+1:], '\'')
				if end < 0 {
					return nil, false
				}
				text.WriteString(cmd[i+1 : i+1+end])
				i += end + 2
			case '"':
				i++
				for {
					if i >= len(cmd) {
						return nil, false
					}
					c := cmd[i]
					if c == '"' {
						i++
						break
					}
					if c == '$' || c == '`' {
						plain = false
					}
					if c == '\\' && i+1 < len(cmd) && strings.IndexByte("\"\\$`", cmd[i+1]) >= 0 {
						i++
						c = cmd[i]
					}
					text.WriteByte(c)
					i++
				}
			case '\\':
				if i+1 < len(cmd) {
					text.WriteByte(cmd[i+1])
					i += 2
				} else {
					i++
				}
			default:
				if strings.IndexByte("$`*?[~{!#", c) >= 0 {
					plain = false
				}
				text.WriteByte(c)
				i++
			}
		}
		words = append(words, shellWord{text: text.String(), raw: cmd[start:i], plain: plain})
	}
	return words, true
}

// shellCommand is what the simulator makes of a command.
type shellCommand struct {
	// segments are its simple commands, as the shell permission request's
	// commandSegments describe them.
	segments []protocol.PermissionRequestShellCommandSegment
	// paths are the files it may touch and writes whether it redirects
	// output to a file, as tool.execution_start's shellToolInfo says.
	paths  []string
	writes bool
	// simple is the words of the command when it is a single simple
	// command with nothing the shell would expand; nil otherwise.
	simple []string
}

// parseShell reads cmd. What CLI 1.0.102 reports of a command was seen to
// be: a segment per simple command (identifier: the program, with git's
// subcommand), and as possible paths the redirections' targets, then the
// arguments that are not options (none for echo), of three characters or
// more.
func parseShell(cmd string) shellCommand {
	words, ok := lexShell(cmd)
	if !ok {
		return shellCommand{paths: []string{}}
	}
	sc := shellCommand{paths: []string{}}
	var seg []shellWord
	var targets, args []string // redirections' targets, arguments
	ops := 0
	allPlain := true
	flush := func() {
		if len(seg) == 0 {
			return
		}
		id := seg[0].text
		if id == "git" && len(seg) > 1 && !strings.HasPrefix(seg[1].text, "-") {
			id += " " + seg[1].text
		}
		raws := make([]string, len(seg))
		for i, w := range seg {
			raws[i] = w.raw
		}
		sc.segments = append(sc.segments, protocol.PermissionRequestShellCommandSegment{Identifier: id, FullCommandText: strings.Join(raws, " ")})
		if seg[0].text != "echo" && seg[0].text != "printf" {
			for _, w := range seg[1:] {
				if !strings.HasPrefix(w.text, "-") && likelyPath(w.text) {
					args = append(args, w.text)
				}
			}
		}
		seg = nil
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch w.op {
		case "":
			seg = append(seg, w)
			allPlain = allPlain && w.plain
		case ">", ">>", "<", ">&":
			ops++
			if i+1 < len(words) && words[i+1].op == "" {
				i++
				if w.op != ">&" && likelyPath(words[i].text) {
					targets = append(targets, words[i].text)
				}
			}
			sc.writes = sc.writes || w.op == ">" || w.op == ">>"
		default:
			ops++
			flush()
		}
	}
	flush()
	// CLI 1.0.102 lists the redirections' targets first.
	sc.paths = append(append(sc.paths, targets...), args...)
	if ops == 0 && allPlain && len(sc.segments) == 1 {
		for _, w := range words {
			sc.simple = append(sc.simple, w.text)
		}
	}
	return sc
}

// likelyPath says whether a word counts as a possible path: CLI 1.0.102
// was seen to leave out words shorter than three characters.
func likelyPath(word string) bool { return utf8.RuneCountInString(word) >= 3 }

// shellToolInfo is tool.execution_start's shellToolInfo for a bash call.
func shellToolInfo(args []byte) *protocol.ToolExecutionStartShellToolInfo {
	var a struct {
		Command *string `json:"command"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Command == nil {
		return nil // the call fails; the CLI reports no paths
	}
	sc := parseShell(*a.Command)
	return &protocol.ToolExecutionStartShellToolInfo{PossiblePaths: sc.paths, HasWriteFileRedirection: sc.writes}
}

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
			s.mu.Lock()
			id := strconv.Itoa(s.shells)
			s.shells++
			s.mu.Unlock()
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
		st, err := root.Stat(t.rel)
		if err != nil {
			fmt.Fprintf(&out, "ls: cannot access '%s': No such file or directory\n", p)
			code = 2
			continue
		}
		if !st.IsDir() {
			out.WriteString(p + "\n")
			continue
		}
		dir, err := root.Open(t.rel)
		if err != nil {
			fmt.Fprintf(&out, "ls: cannot open directory '%s': %v\n", p, err)
			code = 2
			continue
		}
		entries, err := dir.ReadDir(-1)
		dir.Close()
		if err != nil {
			fmt.Fprintf(&out, "ls: reading directory '%s': %v\n", p, err)
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
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
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

// gitFlags are the options each git subcommand the simulator plays may
// take: none of them names a path, runs a program or writes anything.
var gitFlags = map[string][]string{
	"status": {"--short", "-s", "--porcelain", "-b", "--branch"},
	"diff":   {"--stat", "--cached", "--staged", "--name-only", "--name-status", "--numstat", "--shortstat"},
	"log":    {"--oneline"},
}

// gitPlayed returns the git arguments to run for args (after "git"), or
// nil when the simulator does not play them: git status, git diff and git
// log --oneline, with the options of gitFlags (and log's count: -N, -n N,
// --max-count=N).
func gitPlayed(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	sub, rest := args[0], args[1:]
	allowed, ok := gitFlags[sub]
	if !ok {
		return nil
	}
	oneline := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case slices.Contains(allowed, a):
			oneline = oneline || a == "--oneline"
		case sub == "log" && isCount(strings.TrimPrefix(a, "-")) && strings.HasPrefix(a, "-"):
		case sub == "log" && isCount(strings.TrimPrefix(a, "--max-count=")) && strings.HasPrefix(a, "--max-count="):
		case sub == "log" && a == "-n" && i+1 < len(rest) && isCount(rest[i+1]):
			i++
		default:
			return nil
		}
	}
	if sub == "log" && !oneline {
		return nil
	}
	out := []string{sub}
	switch sub {
	case "diff":
		// No external diff program and no textconv filter: either would
		// run a program the repository's configuration names.
		out = append(out, "--no-ext-diff", "--no-textconv")
	case "log":
		out = append(out, "--no-show-signature")
	}
	return append(out, rest...)
}

// capped keeps the first max bytes written to it and drops the rest, so a
// command's output cannot swell a turn; it never fails a write, which
// would stop the command.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// isCount reports whether s is a positive count of at most 1000.
func isCount(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0 && n <= 1000 && s == strconv.Itoa(n)
}

// playGit runs git with args in the folder. Its environment keeps none of
// the process's GIT_ variables (GIT_DIR would point it elsewhere), never
// prompts, takes no optional locks (git status would otherwise refresh the
// index), uses no pager, and runs no fsmonitor hook.
func playGit(ctx context.Context, f folder, args []string) (string, int, *toolFailure) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	full := append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.DevNull, "--no-pager"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = f.real
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat")
	out := &capped{max: maxViewBytes}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0, nil
	case errors.As(err, &exit) && ctx.Err() == nil:
		return out.String(), exit.ExitCode(), nil
	case errors.Is(err, exec.ErrNotFound):
		return "bash: git: command not found\n", 127, nil
	}
	return out.String(), 1, failed("git failed: "+err.Error(), "")
}
