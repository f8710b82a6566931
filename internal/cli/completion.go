package cli

import (
	"context"
	"fmt"
	"strings"
)

const flagWords = "--model --moderator --review --no-review --reviewers --phase-timeout --timeout --concurrency --cli-path --cli-args --transport --output --transcript --quiet --verbose --no-color --sim --config --help"

func runCompletion(_ context.Context, inv *invocation) error {
	if len(inv.args) != 1 {
		return usagef("quorum completion takes one shell: bash, zsh or fish")
	}
	cmds := strings.Join(append(commandNames(), "help"), " ")
	switch inv.args[0] {
	case "bash":
		fmt.Fprintf(inv.e.stdout, `# quorum bash completion; add to ~/.bashrc: source <(quorum completion bash)
_quorum() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "%s" -- "$cur")); return
	fi
	case "$prev" in
	-o|--output) COMPREPLY=($(compgen -W "text markdown json" -- "$cur")); return ;;
	--transport) COMPREPLY=($(compgen -W "stdio tcp" -- "$cur")); return ;;
	--transcript|--config|--cli-path) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	if [ "${COMP_WORDS[1]}" = completion ]; then
		COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return
	fi
	COMPREPLY=($(compgen -W "%s" -- "$cur"))
}
complete -F _quorum quorum
`, cmds, flagWords)
	case "zsh":
		fmt.Fprintf(inv.e.stdout, `#compdef quorum
# quorum zsh completion; add to ~/.zshrc: source <(quorum completion zsh)
_quorum() {
	if (( CURRENT == 2 )); then
		compadd %s
	else
		compadd -- %s
	fi
}
compdef _quorum quorum
`, cmds, flagWords)
	case "fish":
		fmt.Fprintf(inv.e.stdout, "# quorum fish completion; save as ~/.config/fish/completions/quorum.fish\n")
		fmt.Fprintf(inv.e.stdout, "complete -c quorum -f -n '__fish_use_subcommand' -a '%s'\n", cmds)
		for _, f := range strings.Fields(flagWords) {
			fmt.Fprintf(inv.e.stdout, "complete -c quorum -l %s\n", strings.TrimPrefix(f, "--"))
		}
		fmt.Fprintln(inv.e.stdout, "complete -c quorum -s o -l output -xa 'text markdown json'")
	default:
		return usagef("unknown shell %q: use bash, zsh or fish", inv.args[0])
	}
	return nil
}
