package cmdutil

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type shape struct {
	Answer string `json:"answer"`
}

func testFactory(t *testing.T) (*Factory, *bytes.Buffer) {
	var out bytes.Buffer
	dir := t.TempDir()
	return &Factory{In: strings.NewReader(""), Out: &out, ErrOut: &bytes.Buffer{},
		Getenv:    func(string) string { return "" },
		ConfigDir: func() (string, error) { return dir, nil }}, &out
}

// A command has the flags its Spec declares, in that order, then
// --config; one with Output has --json's fields from its Result, and -o
// and --json exclude each other.
func TestNewCommandDeclaresTheSpecsFlags(t *testing.T) {
	f, out := testFactory(t)
	c := NewCommand(f, &cobra.Command{Use: "x"}, Spec{Flags: func(b FlagBuilder) { b.Timeout(); b.Output() }, Result: shape{}},
		func(inv *Invocation) error { return inv.WriteJSON(shape{Answer: "42"}, StatusOK, "") })
	var names []string
	c.Flags().VisitAll(func(fl *pflag.Flag) { names = append(names, fl.Name) })
	if got := strings.Join(names, ","); got != "timeout,output,json,jq,template,config" {
		t.Errorf("flags %s", got)
	}
	if got := strings.Join(JSONFieldsOf(c), ","); got != "answer,command,error,simulated,status" {
		t.Errorf("--json fields %s", got)
	}
	c.SetArgs([]string{"--json", "answer"})
	if err := c.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"answer": "42"`) || strings.Contains(out.String(), "command") {
		t.Errorf("stdout %s", out)
	}
	c = NewCommand(f, &cobra.Command{Use: "y"}, Spec{Flags: FlagBuilder.Output, Result: shape{}}, func(*Invocation) error { return nil })
	c.SetArgs([]string{"-o", "json", "--json", "answer"})
	c.SilenceErrors, c.SilenceUsage = true, true
	if err := c.ExecuteContext(context.Background()); err == nil {
		t.Error("-o and --json were taken together")
	}
	bare := NewCommand(f, &cobra.Command{Use: "z"}, Spec{}, func(*Invocation) error { return nil })
	names = nil
	bare.Flags().VisitAll(func(fl *pflag.Flag) { names = append(names, fl.Name) })
	if strings.Join(names, ",") != "config" || JSONFieldsOf(bare) != nil {
		t.Errorf("a bare command has %q, fields %q", names, JSONFieldsOf(bare))
	}
}
