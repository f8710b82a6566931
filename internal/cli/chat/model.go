package chat

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
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
	eventMsg     quorum.Progress
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
	// lead is the heading of the report's part a reader starts with
	// (leadHeading), "" for its top; anchor is that heading's line in
	// rendered.
	lead   string
	anchor int
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
	// landing is the entry the conversation shows when it is laid out
	// anew (refresh(true)): the last one added that a reader starts at,
	// -1 for the end.
	landing int

	panes   panes
	focus   int // the focused pane's index, -1: none
	running bool
	cancel  context.CancelFunc // the running round's, with errYouStopped
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
	m := &Model{o: &o, ctx: ctx, input: in, focus: -1, landing: -1, st: newStyles(o.Colour),
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
		m.event(quorum.Progress(msg))
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
		m.entries, m.landing = nil, -1
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
