package chat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// The screen, top to bottom: a title line, the main area (the
// conversation; while a round runs, its phase and one pane per model; or
// one model's pane full screen), a line for hints, the input, the status
// line.
const (
	inputHeight = 3
	chrome      = 1 + 1 + inputHeight + 1 // title, hint, input, status
)

// Messages: everything that happens off bubbletea's goroutine arrives as
// one of these.
type (
	eventMsg     quorum.Event
	feedDoneMsg  struct{}
	roundDoneMsg struct {
		r   *quorum.ChatRound
		err error
	}
	tickMsg   time.Time
	editorMsg struct {
		text string
		err  error
	}
	newChatMsg struct {
		c   *quorum.Chat
		err error
	}
	// questionMsg: an /agent round asks the person (the plan's gate, a
	// shell command).
	questionMsg   struct{ q *question }
	planEditedMsg struct {
		plan quorum.AgentPlan
		err  error
	}
)

// entry is one block of the conversation view.
type entry struct {
	kind     entryKind
	text     string // a prompt, a note: plain (already clean) text
	md       string // a round's report: Markdown
	rendered string // md rendered at width
	width    int
}

type entryKind int

const (
	entryPrompt entryKind = iota
	entryNote
	entryReport
)

// Model is the chat's bubbletea model. It is used by bubbletea's goroutine
// only (see the package doc).
type Model struct {
	o   *Options
	ctx context.Context

	width, height int
	input         textarea.Model
	conv          viewport.Model // the conversation
	zoom          viewport.Model // a focused pane
	entries       []entry

	panes   panes
	focus   int // the focused pane's index, -1: none
	running bool
	cancel  context.CancelFunc
	// roundCtx is the running round's, ended with it.
	roundCtx context.Context
	req      request
	phase    quorum.Phase
	started  time.Time
	ended    time.Time
	live     quorum.Usage // the running round's usage so far

	// asking is the running /agent round's question, nil when none waits;
	// queued are the questions asked meanwhile (the provider may ask about
	// several shell commands at once), put one after the other; edited is
	// the plan as the person edited it at the gate; armed is false until
	// the question has been shown for gateArmDelay; gate shows the
	// question.
	asking *question
	queued []*question
	edited *quorum.AgentPlan
	armed  bool
	gate   viewport.Model
	// renewing is true while /new replaces the chat: no round may start
	// on the chat being closed.
	renewing bool

	hist    []string
	histPos int // len(hist): the draft
	draft   string
	hint    string
	quit    bool

	picker *picker // /models' checklist, open over the main area; nil: closed

	st styles
}

type styles struct {
	title, status, hint, prompt, paneTitle, paneDone, paneFail, note, pickCursor lipgloss.Style
}

func newStyles(colour bool) styles {
	var s styles // without colour, no styling at all: text as it is
	if colour {
		s.title = lipgloss.NewStyle().Bold(true).Reverse(true)
		s.status = lipgloss.NewStyle().Reverse(true)
		s.hint = lipgloss.NewStyle().Faint(true)
		s.prompt = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6"))
		s.paneTitle = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6"))
		s.paneDone = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("2"))
		s.paneFail = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("1"))
		s.note = lipgloss.NewStyle().Faint(true)
		s.pickCursor = lipgloss.NewStyle().Reverse(true)
	}
	return s
}

// New returns the chat's model; ctx bounds its rounds.
func New(ctx context.Context, o Options) *Model {
	in := textarea.New()
	in.Prompt = "› "
	in.ShowLineNumbers = false
	in.SetHeight(inputHeight)
	in.CharLimit = 1 << 20
	in.Placeholder = "Ask the quorum; /help for commands"
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("ctrl+j", "alt+enter"))
	// A blinking cursor redraws the screen twice a second for nothing.
	in.Cursor.SetMode(cursor.CursorStatic)
	in.FocusedStyle.CursorLine = lipgloss.NewStyle()
	in.Focus()
	m := &Model{o: &o, ctx: ctx, input: in, focus: -1, st: newStyles(o.Colour),
		conv: viewport.New(80, 10), zoom: viewport.New(80, 10), gate: viewport.New(80, 10)}
	m.conv.MouseWheelEnabled = true
	m.zoom.MouseWheelEnabled = true
	m.gate.MouseWheelEnabled = true
	if o.History != nil {
		m.hist = append([]string{}, o.History.Entries()...)
	}
	m.histPos = len(m.hist)
	if o.Notice != "" {
		m.note(sanitize.Text(o.Notice))
	}
	m.note(m.intro())
	for _, r := range o.Chat.Rounds() {
		m.addRound(&r)
	}
	m.resize(80, 24)
	return m
}

func (m *Model) intro() string {
	models, moderator := m.o.Chat.Models()
	sim := ""
	if m.o.Simulated {
		sim = " (simulated)"
	}
	s := fmt.Sprintf("Conversation %s%s with %s; moderator %s.", m.o.Chat.ID(), sim,
		strings.Join(models, ", "), firstNonEmpty(moderator, first(models)))
	if n := len(m.o.Chat.Rounds()); n > 0 {
		s += fmt.Sprintf(" %d earlier round(s) below; the next builds on them.", n)
	}
	return sanitize.Text(s + " Type a question and press Enter; /help lists commands and keys.")
}

// Init starts reading the round events.
func (m *Model) Init() tea.Cmd { return m.waitEvent() }

func (m *Model) waitEvent() tea.Cmd {
	f, ctx := m.o.Feed, m.ctx
	return func() tea.Msg {
		ev, q, ok := f.next(ctx)
		switch {
		case !ok:
			return feedDoneMsg{}
		case q != nil:
			return questionMsg{q}
		}
		return eventMsg(ev)
	}
}

// tick redraws the elapsed time once a second while the round of ctx
// runs; it ends with the round (bubbletea does not stop a command when
// the program ends, so a plain tea.Tick would outlive it).
func tick(ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		t := time.NewTimer(time.Second)
		defer t.Stop()
		select {
		case now := <-t.C:
			return tickMsg(now)
		case <-ctx.Done():
			return nil
		}
	}
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case eventMsg:
		m.event(quorum.Event(msg))
		return m, m.waitEvent()
	case feedDoneMsg:
		return m, nil
	case questionMsg:
		return m, tea.Batch(m.ask(msg.q), m.waitEvent())
	case gateArmedMsg:
		if m.asking == msg.q {
			m.armed = true
		}
		return m, nil
	case questionOverMsg:
		return m, m.questionOver(msg.q)
	case planEditedMsg:
		m.planEdited(msg.plan, msg.err)
		return m, nil
	case tickMsg:
		if m.running {
			return m, tick(m.roundCtx)
		}
		return m, nil
	case roundDoneMsg:
		m.roundDone(msg.r, msg.err)
		return m, nil
	case newChatMsg:
		m.renewing = false
		if msg.err != nil {
			m.note("/new: " + sanitize.Text(msg.err.Error()))
			return m, nil
		}
		m.o.Chat = msg.c
		m.picker = nil // it lists the old chat's models
		m.entries = nil
		m.panes = panes{}
		m.note(m.intro())
		m.refresh(true)
		return m, nil
	case editorMsg:
		if msg.err != nil {
			m.hint = sanitize.Line(msg.err.Error())
		} else {
			m.input.SetValue(strings.TrimRight(msg.text, "\n"))
		}
		return m, nil
	case tea.MouseMsg:
		if m.picker != nil {
			return m, nil
		}
		return m, m.scroll(msg)
	case tea.KeyMsg:
		if m.picker != nil {
			m.pickerKey(msg)
			return m, nil
		}
		return m.key(msg)
	}
	return m, nil
}

// key handles a key.
func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	m.hint = ""
	if m.asking != nil {
		return m, m.gateKey(k)
	}
	switch k.String() {
	case "ctrl+c":
		switch {
		case m.running:
			m.cancelRound()
		case strings.TrimSpace(m.input.Value()) == "":
			return m.leave()
		default:
			m.input.Reset()
		}
		return m, nil
	case "ctrl+d":
		if !m.running && m.input.Value() == "" {
			return m.leave()
		}
	case "esc":
		switch {
		case m.focus >= 0:
			m.focus = -1
			m.refresh(false)
		case m.running:
			m.cancelRound()
		}
		return m, nil
	case "ctrl+o":
		m.cycleFocus()
		return m, nil
	case "pgup", "pgdown", "ctrl+u", "ctrl+b", "ctrl+f":
		return m, m.scroll(k)
	case "tab":
		line, hits := complete(m.input.Value(), m.completions())
		m.input.SetValue(line)
		if len(hits) > 1 {
			m.hint = strings.Join(hits, "  ")
		}
		return m, nil
	case "ctrl+e":
		return m, m.edit()
	case "enter":
		return m.submit()
	case "up":
		// On the input's first line ↑ recalls; below it, it moves up.
		if m.input.Line() == 0 && len(m.hist) > 0 {
			m.browse(true)
			return m, nil
		}
	case "down":
		// On the input's last line ↓ recalls; above it, it moves down.
		if m.input.Line() == m.input.LineCount()-1 && len(m.hist) > 0 {
			m.browse(false)
			return m, nil
		}
	}
	if k.Alt && len(k.Runes) == 1 && k.Runes[0] >= '1' && k.Runes[0] <= '9' {
		m.setFocus(int(k.Runes[0] - '1'))
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

// leave ends the program; the command closes the chat (its sessions
// deleted) once bubbletea has given the terminal back.
func (m *Model) leave() (tea.Model, tea.Cmd) {
	m.quit = true
	if m.cancel != nil {
		m.cancel()
	}
	return m, tea.Quit
}

func (m *Model) cancelRound() {
	if m.cancel != nil {
		m.cancel()
		m.hint = "cancelling the round: turns aborted, what came in is kept"
	}
}

// completions are the words Tab completes after a command: model ids.
func (m *Model) completions() []string {
	models, _ := m.o.Chat.Models()
	out := append([]string{}, m.o.Offered...)
	for _, x := range models {
		if !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// browse moves through the input history, as readline does in a
// multi-line input: ↑ and ↓ recall only from the input's first and last
// line (its own lines, Ctrl-J's, not the rows a long line wraps to);
// elsewhere the textarea moves the cursor between lines. So that pressing
// the same key again goes on through the history, the cursor lands at the
// end of the entry's first line after ↑ and at the end of its last line
// after ↓ (for a one-line entry both are its end).
func (m *Model) browse(up bool) {
	if m.histPos == len(m.hist) {
		m.draft = m.input.Value()
	}
	switch {
	case up && m.histPos > 0:
		m.histPos--
	case !up && m.histPos < len(m.hist):
		m.histPos++
	default:
		return
	}
	if m.histPos == len(m.hist) {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.hist[m.histPos])
	}
	// SetValue leaves the cursor at the end, on the last line.
	if up {
		for n := m.input.Length(); m.input.Line() > 0 && n >= 0; n-- { // n: a bound only
			m.input.CursorUp()
		}
		m.input.CursorEnd()
	}
	// The textarea scrolls to its cursor only in Update: a message it
	// ignores lets it.
	m.input, _ = m.input.Update(nil)
}

// edit opens the input in the user's editor; the program gives the
// terminal to it and takes it back after.
func (m *Model) edit() tea.Cmd {
	editor := m.o.Editor
	f, err := os.CreateTemp("", "quorum-chat-*.md")
	if err != nil {
		m.hint = "editor: " + sanitize.Line(err.Error())
		return nil
	}
	path := f.Name()
	_, werr := f.WriteString(m.input.Value())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		m.hint = "editor: " + sanitize.Line(werr.Error())
		return nil
	}
	return tea.ExecProcess(editorCommand(editor, path), func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorMsg{err: errors.New(editorFailed(editor, err))}
		}
		b, err := os.ReadFile(path)
		return editorMsg{text: string(b), err: err}
	})
}

// editorCommand runs editor (a command line: "code --wait") on path.
func editorCommand(editor, path string) *exec.Cmd {
	if editor == "" {
		editor = "vi"
	}
	fields := strings.Fields(editor)
	return exec.Command(fields[0], append(fields[1:], path)...)
}

// submit acts on the input.
func (m *Model) submit() (tea.Model, tea.Cmd) {
	line := strings.TrimSpace(m.input.Value())
	if line == "" {
		return m, nil
	}
	if m.running {
		m.hint = "a round is running: wait, or cancel it with Esc"
		return m, nil
	}
	if m.renewing {
		m.hint = "a new conversation is starting: wait a moment"
		return m, nil
	}
	m.input.Reset()
	if len(m.hist) == 0 || m.hist[len(m.hist)-1] != line {
		m.hist = append(m.hist, line)
	}
	m.histPos, m.draft = len(m.hist), ""
	if m.o.History != nil {
		if err := m.o.History.Add(line); err != nil {
			m.hint = sanitize.Line(err.Error())
		}
	}
	models, _ := m.o.Chat.Models()
	req, err := parseLine(line, models)
	if err != nil {
		m.note(sanitize.Text(err.Error()))
		return m, nil
	}
	o := m.o
	switch req.kind {
	case reqQuit:
		return m.leave()
	case reqHelp:
		m.note(helpText(true))
	case reqModels:
		if len(req.args) == 0 {
			m.openPicker()
			break
		}
		if err := setModels(o.Chat, o.Offered, req.args); err != nil {
			m.note(sanitize.Text(err.Error()))
			break
		}
		m.note(modelsText(o.Chat, o.Offered))
	case reqHistory:
		s, err := historyText(o.ChatDir, 20)
		if err != nil {
			s = err.Error()
		}
		m.note(sanitize.Text(s))
	case reqSave:
		path := firstNonEmpty(req.text, "quorum-chat-"+o.Chat.ID()+".md")
		if err := saveMarkdown(path, o.Chat, o.Simulated); err != nil {
			m.note(sanitize.Text(err.Error()))
		} else {
			m.note("Saved the conversation to " + sanitize.Line(path) + ".")
		}
	case reqNew:
		m.renewing = true
		m.note("Starting a new conversation…")
		ctx := m.ctx
		return m, func() tea.Msg {
			c, err := renew(ctx, o)
			return newChatMsg{c, err}
		}
	case reqRound:
		return m, m.startRound(req, line)
	}
	return m, nil
}

// startRound starts a round on a command goroutine.
func (m *Model) startRound(req request, line string) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.running, m.cancel, m.roundCtx, m.req = true, cancel, ctx, req
	m.started, m.ended = m.o.now(), time.Time{}
	m.phase = ""
	m.live = quorum.Usage{}
	models, moderator := m.o.Chat.Models()
	switch req.round {
	case quorum.RoundAsk:
		models = []string{firstNonEmpty(req.model, first(models))}
	case quorum.RoundPlan, quorum.RoundReview, quorum.RoundAgent:
	default:
		moderator = firstNonEmpty(moderator, first(models))
		if !contains(models, moderator) {
			models = append(models, moderator)
		}
	}
	m.panes = newPanes(models)
	m.focus = -1
	m.entries = append(m.entries, entry{kind: entryPrompt, text: sanitize.Text(line)})
	m.refresh(true)
	o, c := m.o, m.o.Chat
	return tea.Batch(tick(ctx), func() tea.Msg {
		r, err := runRound(ctx, o, c, req)
		return roundDoneMsg{r, err}
	})
}

// event applies one of the running round's events to the panes.
func (m *Model) event(ev quorum.Event) {
	switch ev.Kind {
	case quorum.PhaseStarted:
		m.phase = ev.Phase
	case quorum.ModelStarted:
		m.panes.get(ev.Model).start(ev.Phase, ev.Target)
	case quorum.Delta:
		m.panes.get(ev.Model).add(ev.Text)
	case quorum.ModelFinished:
		m.panes.get(ev.Model).finish(ev)
		if ev.Usage != nil {
			m.live.Add(*ev.Usage)
		}
	case quorum.ToolActivity:
		m.panes.get(ev.Model).add("\n⚙ " + ev.Text + "\n")
	case quorum.ActionDecided:
		m.panes.get(ev.Model).add("\n→ " + ev.Text + "\n")
	}
	if m.focus >= 0 {
		m.refreshZoom()
	}
}

// roundDone shows a round's report, or why there is none.
func (m *Model) roundDone(r *quorum.ChatRound, err error) {
	m.running = false
	m.asking, m.edited, m.queued = nil, nil, nil
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.ended = m.o.now()
	m.live = quorum.Usage{}
	if r != nil {
		m.addRound(r)
	}
	switch {
	case cliStopped(err):
		what := "its report above says what came in"
		if r == nil {
			what = sanitize.Line(err.Error())
		}
		m.note(fmt.Sprintf("The Copilot CLI stopped during this round (%s). The conversation is saved: leave, and continue it with quorum chat --resume %s.",
			what, m.o.Chat.ID()))
	case r == nil && err != nil:
		m.note(sanitize.Text(err.Error()))
	case r != nil && r.Status == quorum.RoundInterrupted:
		m.hint = "round interrupted: what came in is shown; the conversation goes on"
	}
	m.refresh(true)
}

// cliStopped tells whether err says the Copilot CLI stopped: itself, or
// the failure of a model that made the run stop (a TooFewError lists
// them; the CLI dying fails every model at once).
func cliStopped(err error) bool {
	if errors.Is(err, copilot.ErrStopped) {
		return true
	}
	var tf *quorum.TooFewError
	if errors.As(err, &tf) {
		for _, f := range tf.Failures {
			if errors.Is(f, copilot.ErrStopped) {
				return true
			}
		}
	}
	return false
}

func (m *Model) addRound(r *quorum.ChatRound) {
	m.entries = append(m.entries, entry{kind: entryReport, md: RoundMarkdown(r, m.o.Simulated)})
}

func (m *Model) note(s string) {
	m.entries = append(m.entries, entry{kind: entryNote, text: s})
	m.refresh(true)
}

// Focus.

func (m *Model) cycleFocus() {
	if len(m.panes.list) == 0 {
		return
	}
	if m.focus+1 >= len(m.panes.list) {
		m.focus = -1
		m.refresh(false)
		return
	}
	m.setFocus(m.focus + 1)
}

func (m *Model) setFocus(i int) {
	if i < 0 || i >= len(m.panes.list) {
		return
	}
	m.focus = i
	m.refreshZoom()
	m.zoom.GotoBottom()
}

func (m *Model) refreshZoom() {
	p := m.panes.list[m.focus]
	atBottom := m.zoom.AtBottom()
	m.zoom.SetContent(ansi.Wrap(p.whole(), m.zoom.Width, ""))
	if atBottom {
		m.zoom.GotoBottom()
	}
}

// scroll scrolls the view in front: the focused pane or the conversation.
func (m *Model) scroll(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if m.asking != nil {
		m.gate, cmd = m.gate.Update(msg)
	} else if m.focus >= 0 {
		m.zoom, cmd = m.zoom.Update(msg)
	} else {
		m.conv, cmd = m.conv.Update(msg)
	}
	return cmd
}

// Layout.

func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 20), max(h, chrome+3)
	main := m.height - chrome
	m.input.SetWidth(m.width)
	m.conv.Width, m.conv.Height = m.width, main
	m.zoom.Width, m.zoom.Height = m.width, main-1
	m.gate.Width, m.gate.Height = m.width, main
	if m.asking != nil {
		m.showQuestion()
	}
	for i := range m.entries {
		m.entries[i].width = 0 // rendered again at the new width
	}
	m.refresh(true)
	if m.focus >= 0 {
		m.refreshZoom()
	}
	if m.picker != nil {
		m.picker.scroll(pickerRows(main))
	}
}

// refresh lays the conversation out again, following its end if asked.
//
// A report is rendered once per width and compacted (compact.go); the
// entry then keeps its rendering as a part of the view's content, so that
// the chat's reports are held once, not in the cache and in the content.
func (m *Model) refresh(bottom bool) {
	var parts []string
	reports := map[int]int{} // part → entry, for the reports
	for i := range m.entries {
		e := &m.entries[i]
		switch e.kind {
		case entryPrompt:
			parts = append(parts, m.st.prompt.Render(ansi.Wrap("› "+e.text, m.width, "")))
		case entryNote:
			parts = append(parts, m.st.note.Render(ansi.Wrap(e.text, m.width, "")))
		case entryReport:
			if e.width != m.width {
				out, err := report.Terminal(e.md, m.width, m.o.Colour)
				if err != nil {
					out = ansi.Wrap(e.md, m.width, "") // Markdown as it is: clean already
				}
				e.rendered, e.width = compact(strings.Trim(out, "\n")), m.width
			}
			reports[len(parts)] = i
			parts = append(parts, e.rendered)
		}
	}
	content := strings.Join(parts, "\n\n")
	at := 0
	for j, p := range parts {
		if i, ok := reports[j]; ok {
			m.entries[i].rendered = content[at : at+len(p)]
		}
		at += len(p) + len("\n\n")
	}
	m.conv.SetContent(content)
	if bottom {
		m.conv.GotoBottom()
	}
}

// View draws the screen.
func (m *Model) View() string {
	if m.quit {
		return ""
	}
	main := m.height - chrome
	var body string
	switch {
	case m.asking != nil:
		body = m.gate.View()
	case m.picker != nil:
		body = m.picker.view(m.width, main, m.st)
	case m.focus >= 0:
		p := m.panes.list[m.focus]
		body = m.st.paneTitle.Render(fit(p.title()+"  (Esc: back, Ctrl-O: next)", m.width)) + "\n" + m.zoom.View()
	case m.running:
		body = fit(m.phaseLine(), m.width) + "\n" + m.panes.view(m.width, main-1, m.st)
	default:
		body = m.conv.View()
	}
	body = lipgloss.NewStyle().Height(main).MaxHeight(main).Render(body)
	title := "quorum chat · " + m.o.Chat.ID()
	if n := len(m.o.Chat.Rounds()); n > 0 {
		title += fmt.Sprintf(" · %d round(s)", n)
	}
	if m.o.Simulated {
		title += " · simulated"
	}
	hint := m.hint
	if hint == "" && m.asking != nil {
		hint = "read the question: its keys work in a moment (typing goes on into the input)"
		if m.armed {
			hint = m.asking.keys(m.edited != nil)
		}
	}
	if hint == "" && m.picker != nil {
		hint = pickerHint
	}
	if hint == "" && !m.running && m.focus < 0 && len(m.panes.list) > 0 {
		hint = "Ctrl-O: each model's whole text of the last round"
	}
	return strings.Join([]string{
		m.st.title.Render(fit(title, m.width)),
		body,
		m.st.hint.Render(fit(hint, m.width)),
		m.input.View(),
		m.st.status.Render(fit(m.statusLine(), m.width)),
	}, "\n")
}

// phaseLine says where the running round is.
func (m *Model) phaseLine() string {
	done, total := m.panes.progress()
	phase := string(m.phase)
	if phase == "" {
		phase = "starting"
	}
	return fmt.Sprintf("%s · %s · %d/%d turns done · %s · Esc cancels", m.req.round, phase, done, total, elapsed(m.o.now().Sub(m.started)))
}

// statusLine: tokens and premium requests so far, the time of the
// running or last round, then the models and the moderator (what a
// narrow terminal cuts first, as it changes least).
func (m *Model) statusLine() string {
	models, moderator := m.o.Chat.Models()
	u := m.o.Chat.Usage()
	u.Add(m.live)
	s := tokens(u.InputTokens+u.OutputTokens) + " tokens · " + strconv.FormatFloat(u.Cost, 'f', -1, 64) + " premium"
	switch {
	case m.running:
		s += " · " + elapsed(m.o.now().Sub(m.started))
	case !m.ended.IsZero():
		s += " · last " + elapsed(m.ended.Sub(m.started))
	}
	s += " · " + strings.Join(models, " ") + " · mod " + firstNonEmpty(moderator, first(models))
	return sanitize.Line(s)
}

func tokens(n int) string {
	if n >= 10000 {
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	}
	return strconv.Itoa(n)
}

func elapsed(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

// fit cuts s to w columns, padding it to w.
func fit(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}
