package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// Options are what both modes need from the command.
type Options struct {
	// Chat is the conversation; its Config.Progress must be Feed.Progress.
	Chat *quorum.Chat
	Feed *Feed
	// Offered are the models the CLI offers: /models' list (a picker full
	// screen, text in the line mode) shows them, and Tab completes them.
	Offered []string
	// NewChat starts a fresh conversation (/new) with these models.
	NewChat func(models []string, moderator string) (*quorum.Chat, error)
	// Change reads the change /review reviews; rng is what followed the
	// command ("" for the default), about describes it.
	Change func(ctx context.Context, rng string) (change quorum.Change, about string, err error)
	// Agent prepares /agent's run of task: the repository checked, its
	// context, the worktree to make, how shell commands are decided. The
	// chat asks the person at the plan's gate and, with quorum.ShellAsk,
	// about each shell command. Nil: /agent is not available.
	Agent func(ctx context.Context, task string) (quorum.AgentConfig, error)
	// Notice, when set, is said first, before the conversation (a
	// warning of the command's: --approve auto).
	Notice string
	// History is the input history (nil: none kept).
	History *History
	// ChatDir is where chats are saved, for /history.
	ChatDir string
	// Simulated labels the reports as the simulator's.
	Simulated bool
	// Colour: styled output (the TUI) and colour in rendered reports.
	Colour bool
	// Editor is the command Ctrl-E opens the input in ($VISUAL, $EDITOR).
	Editor string
}

// ErrUnknownCommand reports a slash command that does not exist.
var ErrUnknownCommand = errors.New("unknown command")

// commands are the slash commands, for help and completion.
var commands = []struct{ name, args, help string }{
	{"/ask", "[model] text", "ask one model, in its own session"},
	{"/debate", "claim", "a debate: for and against, a verdict"},
	{"/plan", "task", "ensemble planning: proposals, votes, a winner"},
	{"/review", "[range]", "review git diff range (default HEAD~1..HEAD)"},
	{"/agent", "[--attempts N] task | --plan", "plan the task, approve it, carry it out in a git worktree (N attempts at once); --plan: carry out the last plan /agent stopped at, with no planning (--attempts N too)"},
	{"/models", "[m1 m2 …] [moderator=m]", "pick participants and moderator from the list"},
	{"/new", "", "a new conversation, in fresh sessions"},
	{"/save", "[file]", "save the conversation as Markdown"},
	{"/history", "", "the saved conversations"},
	{"/help", "", "commands and keys"},
	{"/quit", "", "leave (sessions deleted; the chat stays saved)"},
}

// reqKind is what a line asks for.
type reqKind int

const (
	reqRound reqKind = iota
	reqModels
	reqNew
	reqSave
	reqHistory
	reqHelp
	reqQuit
)

// request is a line of input, read.
type request struct {
	// attempts is /agent --attempts N's N; 0 for one attempt.
	attempts int

	kind  reqKind
	round quorum.RoundKind
	text  string   // the round's text; /save's file
	model string   // /ask's model
	args  []string // /models'
	// givenPlan: /agent --plan, which carries out an earlier round's plan.
	givenPlan bool
}

// parseLine reads a line of input: plain text is a discussion round, a
// line starting with / a command. models are the chat's participants
// (/ask's first word may name one).
func parseLine(line string, models []string) (request, error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return request{kind: reqRound, round: quorum.RoundDiscuss, text: line}, nil
	}
	name, rest, _ := strings.Cut(line, " ")
	if strings.Contains(name, "\n") {
		name, rest, _ = strings.Cut(line, "\n")
	}
	rest = strings.TrimSpace(rest)
	attempts := 0
	if name == "/agent" {
		n, task, err := agentAttempts(rest)
		if err != nil {
			return request{}, err
		}
		attempts, rest = n, task
	}
	needText := func(k quorum.RoundKind, what string) (request, error) {
		if rest == "" {
			return request{}, fmt.Errorf("%s needs %s", name, what)
		}
		return request{kind: reqRound, round: k, text: rest, attempts: attempts}, nil
	}
	switch name {
	case "/plan":
		return needText(quorum.RoundPlan, "a task")
	case "/debate":
		return needText(quorum.RoundDebate, "a claim")
	case "/review":
		return request{kind: reqRound, round: quorum.RoundReview, text: rest}, nil
	case "/agent":
		if opt, more, _ := strings.Cut(rest, " "); opt == "--plan" {
			if strings.TrimSpace(more) != "" {
				return request{}, errors.New("/agent --plan takes nothing after it: it carries out the plan of the last /agent round that stopped at it (quorum agent --plan FILE carries out a saved one)")
			}
			return request{kind: reqRound, round: quorum.RoundAgent, givenPlan: true, attempts: attempts}, nil
		}
		return needText(quorum.RoundAgent, "a task")
	case "/ask":
		first, text, _ := strings.Cut(rest, " ")
		model := ""
		if slices.Contains(models, first) {
			model, rest = first, strings.TrimSpace(text)
		}
		r, err := needText(quorum.RoundAsk, "a question")
		r.model = model
		return r, err
	case "/models":
		return request{kind: reqModels, args: strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == ',' })}, nil
	case "/new":
		return request{kind: reqNew}, nil
	case "/save":
		return request{kind: reqSave, text: rest}, nil
	case "/history":
		return request{kind: reqHistory}, nil
	case "/help", "/?":
		return request{kind: reqHelp}, nil
	case "/quit", "/exit":
		return request{kind: reqQuit}, nil
	}
	return request{}, fmt.Errorf("%w %s; /help lists them", ErrUnknownCommand, sanitize.Line(name))
}

// agentAttempts reads /agent's leading --attempts N (or --attempts=N)
// and returns N (0 without it) and the task after it.
func agentAttempts(rest string) (int, string, error) {
	first, after, _ := strings.Cut(rest, " ")
	var arg string
	switch {
	case first == "--attempts":
		arg, after, _ = strings.Cut(strings.TrimSpace(after), " ")
	case strings.HasPrefix(first, "--attempts="):
		arg = strings.TrimPrefix(first, "--attempts=")
	default:
		return 0, rest, nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > quorum.MaxAttempts {
		return 0, "", fmt.Errorf("/agent --attempts takes a number from 1 to %d, then the task", quorum.MaxAttempts)
	}
	return n, strings.TrimSpace(after), nil
}

// complete completes the word before the end of line: a command after
// "/", a model id after a command. It returns the line completed as far as
// the candidates agree, and the candidates (more than one: a choice to
// show).
func complete(line string, models []string) (string, []string) {
	if !strings.HasPrefix(line, "/") {
		return line, nil
	}
	i := strings.LastIndexAny(line, " ,=")
	if i < 0 { // the command itself
		var names []string
		for _, c := range commands {
			names = append(names, c.name)
		}
		return completeWord(line, "", names, " ")
	}
	return completeWord(line[i+1:], line[:i+1], models, " ")
}

func completeWord(word, before string, candidates []string, after string) (string, []string) {
	var hits []string
	for _, c := range candidates {
		if strings.HasPrefix(c, word) {
			hits = append(hits, c)
		}
	}
	switch len(hits) {
	case 0:
		return before + word, nil
	case 1:
		return before + hits[0] + after, nil
	}
	common := hits[0]
	for _, h := range hits[1:] {
		for !strings.HasPrefix(h, common) {
			common = common[:len(common)-1]
		}
	}
	return before + common, hits
}

// helpText is /help's: the commands, then the keys of the full screen,
// or how the line mode reads its input.
func helpText(screen bool) string {
	var b strings.Builder
	b.WriteString("Type a question and press Enter for a discussion round; a follow-up goes to the same sessions and builds on what the round concluded.\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %-26s %s\n", c.name, c.args, c.help)
	}
	if !screen {
		b.WriteString(`
Each line is a question or a command; a line ending with \ goes on on the next.
/agent's questions are answered on the next line: y or n for the plan (e names
a file holding it, to edit before pressing Enter), y, n or a (always) for a shell
command. The end of the input (Ctrl-D) or /quit leaves.
`)
		return b.String()
	}
	b.WriteString(`
Keys:
  Enter          send                     Ctrl-J, Alt-Enter  new line
  Up/Down        move between the input's lines; from its first (last) line, the
                 previous (next) input, with the cursor on its first (last) line
  Ctrl-U, Ctrl-K delete the input before (after) the cursor, as in a shell
  Ctrl-E         edit the input in $EDITOR
  Tab            complete commands, model ids
  Esc, Ctrl-C    cancel the round (what came in is kept, marked interrupted)
  At /agent's gate: y carry the plan out, e edit it in $EDITOR, n reject it;
  asked about a shell command: y allow, n deny, a allow it for the rest of the round
  Ctrl-O         focus the next model's pane full screen; Alt-1…9 one of them; Esc back
  PgUp/PgDn, mouse wheel   scroll
  /models' list  Up/Down, k/j move; Space take part or not; m moderator (again:
                 the first taking part); Enter apply; Esc leave unchanged
  Ctrl-C, Ctrl-D at an empty prompt, or /quit   leave
`)
	return b.String()
}

// runRound runs the round req asks for.
func runRound(ctx context.Context, o *Options, c *quorum.Chat, req request) (*quorum.ChatRound, error) {
	switch req.round {
	case quorum.RoundPlan:
		return c.Plan(ctx, req.text)
	case quorum.RoundDebate:
		return c.Debate(ctx, req.text)
	case quorum.RoundReview:
		if o.Change == nil {
			return nil, errors.New("/review is not available here")
		}
		ch, about, err := o.Change(ctx, req.text)
		if err != nil {
			return nil, err
		}
		return c.Review(ctx, ch, about)
	case quorum.RoundAsk:
		return c.Ask(ctx, req.model, req.text)
	case quorum.RoundAgent:
		if req.givenPlan {
			return carryOut(ctx, o, c, req.attempts)
		}
		cfg, err := agentConfig(ctx, o, req.text)
		if err != nil {
			return nil, err
		}
		cfg.Attempts = req.attempts
		return c.Agent(ctx, req.text, cfg)
	}
	return c.Discuss(ctx, req.text)
}

// setModels applies /models' arguments: model ids, and moderator=id.
func setModels(c *quorum.Chat, offered, args []string) error {
	var models []string
	moderator := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "moderator="):
			moderator = strings.TrimPrefix(a, "moderator=")
		case a == "moderator" || a == "--moderator":
			if i+1 < len(args) {
				moderator = args[i+1]
				i++
			}
		default:
			models = append(models, a)
		}
	}
	for _, m := range append(slices.Clone(models), moderator) {
		if m != "" && len(offered) > 0 && !slices.Contains(offered, m) {
			return fmt.Errorf("the CLI offers no model %q; /models lists them", sanitize.Line(m))
		}
	}
	if len(models) == 0 {
		models, _ = c.Models()
	}
	return c.SetModels(models, moderator)
}

// modelsText is /models' list: every offered model, the participants and
// the moderator marked.
func modelsText(c *quorum.Chat, offered []string) string {
	models, moderator := c.Models()
	if moderator == "" && len(models) > 0 {
		moderator = models[0]
	}
	var b strings.Builder
	b.WriteString("Models (* takes part, M moderates); change with /models m1 m2 … moderator=m\n")
	all := slices.Clone(offered)
	for _, m := range append(slices.Clone(models), moderator) {
		if !slices.Contains(all, m) {
			all = append(all, m)
		}
	}
	for _, m := range all {
		mark := " "
		if slices.Contains(models, m) {
			mark = "*"
		}
		mod := " "
		if m == moderator {
			mod = "M"
		}
		fmt.Fprintf(&b, "  %s%s %s\n", mark, mod, sanitize.Line(m))
	}
	return strings.TrimRight(b.String(), "\n")
}

// historyText is /history's: the saved chats, latest first.
func historyText(dir string, limit int) (string, error) {
	list, bad, err := quorum.ListChats(dir)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if len(list) == 0 {
		fmt.Fprintf(&b, "No saved conversations in %s.\n", dir)
	}
	for i, sc := range list {
		if limit > 0 && i == limit {
			fmt.Fprintf(&b, "… and %d more (quorum history lists them all)\n", len(list)-limit)
			break
		}
		b.WriteString(HistoryLine(sc) + "\n")
	}
	for _, e := range bad {
		b.WriteString(sanitize.Line(e.Error()) + "\n")
	}
	b.WriteString("Continue one with quorum chat --resume ID; show one with quorum show ID.")
	return b.String(), nil
}

// HistoryLine describes a saved chat in one line: id, last change,
// rounds, models and its first question.
func HistoryLine(sc *quorum.SavedChat) string {
	first := ""
	if len(sc.Rounds) > 0 {
		first = sc.Rounds[0].Prompt
	}
	if r := []rune(first); len(r) > 50 {
		first = string(r[:49]) + "…"
	}
	return sanitize.Line(fmt.Sprintf("%-23s  %s  %2d round(s)  %s  %s", sc.ID, sc.UpdatedAt.Local().Format("2006-01-02 15:04"), len(sc.Rounds), strings.Join(sc.Models, ","), first))
}
