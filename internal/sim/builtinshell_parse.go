package sim

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The bash tool's reading of a command, as a shell would read it: words,
// quotes and operators (lexShell), and what the command names (parseShell).

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
