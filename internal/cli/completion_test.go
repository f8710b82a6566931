package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/internal/testing/ptytest"
)

// complete runs `quorum __complete args…` in-process, as the shell
// scripts do, and returns the candidates (without descriptions).
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	o := newHarness(t).run(append([]string{"__complete"}, args...)...)
	if o.code != cmdutil.ExitOK {
		t.Fatalf("__complete %q: exit %d: %s", args, o.code, o.stderr)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(o.stdout), "\n") {
		if strings.HasPrefix(l, ":") {
			break // the directive
		}
		id, _, _ := strings.Cut(l, "\t")
		out = append(out, id)
	}
	return out
}

// Model ids come from the simulator with --sim (from the CLI otherwise:
// TestRealCLI/complete-models); a comma-separated -m list completes its
// last item; the other flags complete their values.
func TestCompletionValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"discuss", "--sim", "-m", ""}, "sim-alpha sim-beta sim-gamma sim-moderator"},
		{[]string{"discuss", "--sim", "-m", "sim-alpha,"}, "sim-alpha,sim-beta sim-alpha,sim-gamma sim-alpha,sim-moderator"},
		{[]string{"discuss", "--sim", "--moderator", ""}, "sim-alpha sim-beta sim-gamma sim-moderator"},
		{[]string{"ask", "--sim", "-m", ""}, "sim-alpha sim-beta sim-gamma sim-moderator"},
		{[]string{"plan", "-o", ""}, "text markdown json"},
		{[]string{"discuss", "--transport", ""}, "stdio tcp"},
		{[]string{"plan", "--show", "votes,"}, "votes,proposals votes,standings votes,winner votes,usage"},
		{[]string{"review", "--fail-on", ""}, "blocking major minor none"},
		{[]string{"review", "--show", ""}, "reviews findings usage"},
		{[]string{"debate", "--show", "ledger,"}, "ledger,arguments ledger,verdict ledger,usage"},
		{[]string{"debate", "--sim", "--moderator", ""}, "sim-alpha sim-beta sim-gamma sim-moderator"},
		{[]string{"models", "--json", ""}, "allowance command error models simulated status"},
		{[]string{"config", "set", ""}, strings.Join(config.Names(), " ")},
		{[]string{"config", "set", "output", ""}, "text markdown json"},
		{[]string{"help", "dis"}, "discuss"},
		{[]string{"completion", ""}, "bash fish powershell zsh"},
		{[]string{"pl"}, "plan"},
		{[]string{"agent", "--approve", ""}, "ask quorum auto never"},
		{[]string{"agent", "--sim", "--executor", ""}, "sim-alpha sim-beta sim-gamma sim-moderator"},
		{[]string{"agent", "--sim", "--solo", ""}, "sim-alpha sim-beta sim-gamma sim-moderator"},
		{[]string{"agent", "--show", "steps,"}, "steps,context steps,proposals steps,votes steps,plan-review steps,plan steps,attempts steps,actions steps,sandbox steps,review steps,next steps,usage"},
		{[]string{"agent", "--fail-on", ""}, "blocking major minor none"},
	} {
		got := complete(t, c.args...)
		var matching []string
		for _, g := range got {
			if g != "" && (strings.HasPrefix(g, c.args[len(c.args)-1]) || c.args[len(c.args)-1] == "") {
				matching = append(matching, g)
			}
		}
		if strings.Join(matching, " ") != c.want {
			t.Errorf("%q: %q, want %q", c.args, matching, c.want)
		}
	}
}

// shellEnv is an environment where `quorum` on PATH is the binary under
// test, and nothing of the developer's shell set-up is read.
func shellEnv(t *testing.T) []string {
	dir := t.TempDir()
	if err := os.Symlink(quorumBinary(t), filepath.Join(dir, "quorum")); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"ZDOTDIR=" + home, "TERM=xterm"}
}

// The completion commands' help says the bash script needs no package,
// and lists the flags cobra gives them.
func TestCompletionHelp(t *testing.T) {
	o := newHarness(t).run("completion", "bash", "--help")
	if !strings.Contains(o.stdout, "works with or without the bash-completion package") || strings.Contains(o.stdout, "depends on") ||
		!strings.Contains(o.stdout, "FLAGS\n      --no-descriptions") {
		t.Errorf("help:\n%s", o.stdout)
	}
}

// The bash script, loaded into bash as `source <(quorum completion bash)`
// does, completes a model id, a flag's value and a command. Bash is
// always there; the bash-completion package need not be (the script
// stands in for the one function of it that it uses).
func TestCompletionInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed: %v", err)
	}
	script := `source <(quorum completion bash) || exit 1
complete_line() {
	COMP_LINE=$1; COMP_POINT=${#COMP_LINE}
	read -ra COMP_WORDS <<< "$COMP_LINE"; [[ $COMP_LINE == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	COMPREPLY=()
	__start_quorum quorum "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
	echo "$1 => ${COMPREPLY[*]}"
}
complete_line 'quorum discuss --sim -m sim-a'
complete_line 'quorum discuss --sim --moderator sim-m'
complete_line 'quorum plan --output=m'
complete_line 'quorum disc'
`
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
	cmd.Env = shellEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	for _, want := range []string{
		"quorum discuss --sim -m sim-a => sim-alpha\n",
		"quorum discuss --sim --moderator sim-m => sim-moderator\n",
		"quorum plan --output=m => markdown\n",
		"quorum disc => discuss\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("bash completion lacks %q:\n%s", want, out)
		}
	}
}

// The fish script completes a model id in fish. Fish is an environment
// capability, not part of quorum: the test runs where fish is installed
// (apt-get install fish) and is skipped elsewhere; bash is tested always.
func TestCompletionInFish(t *testing.T) {
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("fish is not installed here; the fish script is tested where it is")
	}
	cmd := exec.Command(fish, "--no-config", "-c", `quorum completion fish | source; complete -C'quorum discuss --sim -m sim-a'; complete -C'quorum plan -o j'`)
	cmd.Env = shellEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if !strings.Contains(string(out), "sim-alpha") || !strings.Contains(string(out), "json") {
		t.Errorf("fish completion:\n%s", out)
	}
}

// The zsh script, loaded into an interactive zsh on a pseudo-terminal,
// completes a model id when Tab is pressed. Zsh is an environment
// capability, not part of quorum: the test runs where zsh is installed
// (apt-get install zsh) and is skipped elsewhere; bash is tested always.
func TestCompletionInZsh(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh is not installed here; the zsh script is tested where it is")
	}
	term := startShell(t, shellEnv(t), zsh, "-f", "-i")
	term.send("autoload -U compinit && compinit -u && source <(quorum completion zsh) && echo READY-$((40+2))\n")
	term.waitFor("READY-42")
	term.send("quorum discuss --sim -m sim-a\t")
	term.waitFor("sim-alpha")
	term.send("\x15echo DONE-$((6*7))\n") // Ctrl-U clears the line
	term.waitFor("DONE-42")
}

// shell is an interactive shell on a pseudo-terminal.
type shell struct {
	t      *testing.T
	master *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	grew   chan struct{}
}

func startShell(t *testing.T, env []string, bin string, args ...string) *shell {
	t.Helper()
	master, slave, err := ptytest.Open(200, 40)
	if err != nil {
		t.Fatalf("a pseudo-terminal is needed: %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		slave.Close()
		master.Close()
		t.Fatal(err)
	}
	slave.Close()
	s := &shell{t: t, master: master, grew: make(chan struct{}, 1)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.grew <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		master.Close()
		<-read
	})
	return s
}

func (s *shell) send(text string) {
	if _, err := s.master.WriteString(text); err != nil {
		s.t.Fatal(err)
	}
}

// waitFor waits until the terminal has shown want, or fails the test when
// a guard long past any real wait has passed.
func (s *shell) waitFor(want string) {
	s.t.Helper()
	guard := time.NewTimer(30 * time.Second)
	defer guard.Stop()
	for {
		s.mu.Lock()
		ok, seen := strings.Contains(s.out.String(), want), s.out.String()
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-s.grew:
		case <-guard.C:
			s.t.Fatalf("the terminal never showed %q:\n%q", want, seen)
		}
	}
}
