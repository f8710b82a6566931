package chat

import (
	"context"
	"errors"
	"io"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/quorum-go/quorum/quorum"
)

// Run runs the full-screen UI with in and out as its terminal until the
// user leaves or ctx ends. It returns the chat in use at the end (/new
// replaces it), for the caller to close; a round still running is
// cancelled first.
func Run(ctx context.Context, o Options, in io.Reader, out io.Writer) (*quorum.Chat, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := New(ctx, o)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out),
		tea.WithAltScreen(), tea.WithMouseCellMotion(),
		// The renderer wakes at this rate even when nothing changes; 30
		// frames a second are as smooth as text streams need, and halve
		// the idle wake-ups of bubbletea's default 60.
		tea.WithFPS(30))
	_, err := p.Run()
	if m.cancel != nil {
		m.cancel()
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil // ctx ended: the caller knows why
	}
	return m.o.Chat, err
}
