package chatcmd

import (
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// completeChats completes the ids of the saved conversations, latest
// first, each described by its first question.
func completeChats(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return chatIDs(f, toComplete)
	}
}

func chatIDs(f *cmdutil.Factory, toComplete string) ([]string, cobra.ShellCompDirective) {
	state, err := f.StateDir()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	list, _, _ := quorum.ListChats(filepath.Join(state, "chats"))
	var out []string
	for _, sc := range list {
		if !strings.HasPrefix(sc.ID, toComplete) {
			continue
		}
		desc := ""
		if len(sc.Rounds) > 0 {
			desc = "\t" + sanitize.Line(sc.Rounds[0].Prompt)
		}
		out = append(out, sc.ID+desc)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
