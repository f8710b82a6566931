package sim

import (
	"slices"
	"testing"
)

// How the simulator reads a command decides what it runs: only a single
// simple command with nothing the shell would expand.
func TestParseShell(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		simple []string // nil: not run
	}{
		{"ls", []string{"ls"}},
		{"ls -a 'a b' \"c d\" e\\ f", []string{"ls", "-a", "a b", "c d", "e f"}},
		{`echo "x \"y\" \\ z"`, []string{"echo", `x "y" \ z`}},
		{"ls | wc -l", nil},
		{"ls; pwd", nil},
		{"ls && pwd", nil},
		{"ls > out", nil},
		{"cat < in", nil},
		{"ls 2>&1", nil},
		{"echo $HOME", nil},
		{`echo "$HOME"`, nil},
		{"echo `id`", nil},
		{"echo $(id)", nil},
		{"cat *.go", nil},
		{"ls ~", nil},
		{"(ls)", nil},
		{"ls &", nil},
		{"ls\npwd", nil},
		{"echo 'unterminated", nil},
		{"", nil},
	} {
		if got := parseShell(tc.cmd).simple; !slices.Equal(got, tc.simple) {
			t.Errorf("%q: simple %q, want %q", tc.cmd, got, tc.simple)
		}
	}
}

// The reader never panics, and what it calls simple has one segment.
func FuzzParseShell(f *testing.F) {
	for _, s := range []string{"ls -a", "echo 'a' \"b\" c\\", "a && b || c | d; e & (f) > g >> h < i >& j", `"\`, "'", "x\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		sc := parseShell(cmd)
		if sc.simple != nil && len(sc.segments) != 1 {
			t.Errorf("%q: simple with %d segments", cmd, len(sc.segments))
		}
	})
}

// A git command is played only with the options that name no path, run
// no program and write nothing.
func TestGitPlayed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"status"}, true},
		{[]string{"status", "--short"}, true},
		{[]string{"diff", "--stat", "--cached"}, true},
		{[]string{"log", "--oneline", "-5"}, true},
		{[]string{"log", "--oneline", "-n", "5"}, true},
		{[]string{"log", "--oneline", "--max-count=3"}, true},
		{[]string{"log"}, false},
		{[]string{"log", "--oneline", "-0"}, false},
		{[]string{"log", "--oneline", "-n"}, false},
		{[]string{"diff", "HEAD~1"}, false},
		{[]string{"diff", "--output=x"}, false},
		{[]string{"diff", "--", "../x"}, false},
		{[]string{"status", "-uall"}, false},
		{[]string{"push"}, false},
		{[]string{"-c", "core.pager=x", "status"}, false},
		{nil, false},
	} {
		if got := gitPlayed(tc.args) != nil; got != tc.ok {
			t.Errorf("git %q played: %v, want %v", tc.args, got, tc.ok)
		}
	}
}
