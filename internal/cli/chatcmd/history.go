package chatcmd

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// This file is `quorum history`: the saved conversations, a table for
// people, JSON for programs.

// HistoryOptions are what quorum history runs with: its invocation.
type HistoryOptions struct {
	*cmdutil.Invocation
}

// HistoryResult is quorum history's JSON result: the saved conversations,
// the latest first, and the files that could not be read.
type HistoryResult struct {
	Chats []ChatSummary `json:"chats"`
	// Unreadable says, for each chat file that could not be read, which
	// and why.
	Unreadable []string `json:"unreadable"`
}

// ChatSummary is one saved conversation, as history lists it.
type ChatSummary struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Rounds    int       `json:"rounds"`
	// Models are every round's participants, in the order they first
	// took part (the chat's models when it has no round yet): a chat whose
	// models were changed between rounds lists them all.
	Models []string `json:"models"`
	// Simulated: answers in it came from quorum's simulator (--sim).
	Simulated bool `json:"simulated"`
	// Question is the first round's prompt; "" before the first round.
	Question string `json:"question"`
	Closed   bool   `json:"closed"`
}

// NewCmdHistory is quorum history; runF, when not nil, runs in place of
// the command's own code with the options parsed (a test's).
func NewCmdHistory(f *cmdutil.Factory, runF func(*HistoryOptions) error) *cobra.Command {
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "history",
		Short: "List the saved conversations of quorum chat",
		Long: `List the conversations quorum chat saved (under $XDG_STATE_HOME/quorum/chats),
the latest first: id, last change, rounds, the models that took part in
them (marked when simulated) and the first question. quorum show ID prints
one; quorum chat --resume ID continues it. -o json (or --json, --jq) gives
them to programs.`,
		Example: `  $ quorum history
  $ quorum history --jq '.result.chats[].id'`,
		Args: cmdutil.NoArgs,
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) { b.Output() }, Result: HistoryResult{}}, func(inv *cmdutil.Invocation) error {
		opts := &HistoryOptions{Invocation: inv}
		if runF != nil {
			return runF(opts)
		}
		return historyRun(opts)
	})
}

func historyRun(opts *HistoryOptions) error {
	inv := opts.Invocation
	state, err := inv.StateDir()
	if err != nil {
		return err
	}
	list, bad, err := quorum.ListChats(filepath.Join(state, "chats"))
	if err != nil {
		return err
	}
	res := HistoryResult{Chats: []ChatSummary{}, Unreadable: []string{}}
	for _, sc := range list {
		res.Chats = append(res.Chats, summarise(sc))
	}
	for _, err := range bad {
		res.Unreadable = append(res.Unreadable, sanitize.Line(err.Error()))
	}
	if inv.JSONOutput() {
		return inv.WriteJSON(res, cmdutil.StatusOK, "")
	}
	for _, u := range res.Unreadable {
		fmt.Fprintln(inv.ErrOut, "quorum: "+u)
	}
	if len(list) == 0 {
		if len(bad) == 0 {
			fmt.Fprintln(inv.ErrOut, "quorum: no saved conversations yet; quorum chat starts one")
		}
		return nil
	}
	return writeHistory(inv, res.Chats)
}

// summarise is a saved conversation as history lists it.
func summarise(sc *quorum.SavedChat) ChatSummary {
	s := ChatSummary{ID: sc.ID, CreatedAt: sc.CreatedAt, UpdatedAt: sc.UpdatedAt, Rounds: len(sc.Rounds),
		Simulated: simulatedChat(sc), Closed: sc.Closed, Models: []string{}}
	for _, r := range sc.Rounds {
		for _, m := range r.Models {
			if !slices.Contains(s.Models, m) {
				s.Models = append(s.Models, m)
			}
		}
	}
	if len(sc.Rounds) == 0 {
		s.Models = append(s.Models, sc.Models...)
	} else {
		s.Question = sc.Rounds[0].Prompt
	}
	return s
}

// questionColumn is how much of the first question the table shows.
const questionColumn = 50

// writeHistory prints the conversations as a table, a header row and
// columns aligned whatever the length of the models list.
func writeHistory(inv *cmdutil.Invocation, chats []ChatSummary) error {
	tw := tabwriter.NewWriter(inv.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tROUNDS\tMODELS\tFIRST QUESTION")
	for _, c := range chats {
		models := strings.Join(c.Models, ", ")
		if c.Simulated {
			models += " (simulated)"
		}
		q := sanitize.Line(c.Question)
		if r := []rune(q); len(r) > questionColumn {
			q = string(r[:questionColumn-1]) + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sanitize.Line(c.ID), c.UpdatedAt.Local().Format("2006-01-02 15:04"),
			strconv.Itoa(c.Rounds), sanitize.Line(models), q)
	}
	return tw.Flush()
}

// simulatedChat says whether a saved chat's answers came, at least in
// part, from the simulator: it was saved as simulated, or (a chat saved
// before chats were marked) a round's conclusion carries the simulator's
// label.
func simulatedChat(sc *quorum.SavedChat) bool {
	if sc.Simulated {
		return true
	}
	for _, r := range sc.Rounds {
		if strings.Contains(r.Conclusion, "[simulated ") {
			return true
		}
	}
	return false
}
