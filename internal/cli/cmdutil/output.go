package cmdutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
)

// envelope is what every command prints with -o json: one object,
//
//	{"command": "discuss", "simulated": false, "status": "ok", "error": "…", "result": {…}}
//
// command is the command ("discuss", "plan", "debate", "review", "ask",
// "models", "config", "version"). simulated is true for --sim runs, whose answers come from
// the simulator. status is "ok"; for discuss, plan, debate and review also "degraded"
// (some models dropped out: exit status 3), "failed" (exit status 1) or
// "interrupted" (exit status 130 or 143), and then error says why and
// result holds what had been collected. Every key is always there: error
// is null when nothing went wrong, and a command that failed before it
// had a result (a broken config, no CLI, a bad input) prints status
// "failed" with the error and a null result. result is the command's result:
// for discuss, plan, debate and review the quorum package's result schema
// (quorum/result.go, result_debate.go, result_review.go),
// for the others as their help says. Field names are camelCase, durations
// are milliseconds in fields ending in Ms, and lists are [] when empty,
// never null.
//
// --json FIELDS prints an object with only those fields, taken from the
// result, or from the envelope for command, simulated, status and error;
// a simulated result's object always has simulated (true).
// One field is more there than in the result: plan's winner is the
// winning proposal (label, model, title, steps, risks, text), where the
// result has its label.
type Envelope struct {
	Command   string `json:"command"`
	Simulated bool   `json:"simulated"`
	Status    string `json:"status"`
	// Error is null when the command succeeded: jq takes "" for true.
	Error  *string `json:"error"`
	Result any     `json:"result"`
}

// envelopeFields are the fields --json can take from the envelope itself.
var envelopeFields = []string{"command", "simulated", "status", "error"}

// JSONFields lists the fields --json accepts for a command whose result
// has the shape of the zero result shape, sorted; none without one.
func JSONFields(shape any) []string {
	if shape == nil {
		return nil
	}
	b, _ := json.Marshal(shape)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	fields := slices.Clone(envelopeFields)
	for k := range m {
		if !slices.Contains(fields, k) {
			fields = append(fields, k)
		}
	}
	sort.Strings(fields)
	return fields
}

// checkJSONFields refuses fields the command's result does not have.
func (inv *Invocation) checkJSONFields() error {
	known := JSONFields(inv.Spec.Result)
	for _, f := range inv.Opts.JSON {
		if !slices.Contains(known, f) {
			return Usagef("--json: %s has no field %q (fields: %s)", inv.Name, f, strings.Join(known, ", "))
		}
	}
	return nil
}

// WriteJSON prints the envelope of result, or with --json the fields
// asked for.
func (inv *Invocation) WriteJSON(result any, status, errText string) error {
	inv.PrintedJSON = true
	env := Envelope{Command: inv.Name, Simulated: inv.Simulated(), Status: status, Result: result}
	if errText != "" {
		env.Error = &errText
	}
	var out any = env
	if len(inv.Opts.JSON) > 0 {
		flat := map[string]json.RawMessage{}
		for _, x := range []any{env, result} {
			if x == nil {
				continue // no result: null would empty the map
			}
			b, err := json.Marshal(x)
			if err != nil {
				return err
			}
			_ = json.Unmarshal(b, &flat) // result's fields win: error means the same in both
		}
		if p, ok := result.(*quorum.PlanResult); ok {
			// A plan's winner is the label of a proposal in the result; a
			// field picked alone has nothing to look the label up in, so
			// it is the winning plan itself.
			for _, pr := range p.Proposals {
				if pr.Label == p.Winner {
					b, err := json.Marshal(pr)
					if err != nil {
						return err
					}
					flat["winner"] = b
				}
			}
		}
		picked := map[string]json.RawMessage{}
		for _, f := range inv.Opts.JSON {
			v, ok := flat[f]
			if !ok {
				v = json.RawMessage("null") // an optional field that is absent
			}
			picked[f] = v
		}
		// The simulator's answers are never printed without their mark:
		// fields picked from a simulated result come with simulated.
		if env.Simulated {
			picked["simulated"] = json.RawMessage("true")
		}
		out = picked
	}
	switch {
	case inv.JQ != nil:
		return writeJQ(inv.Cmd.Context(), inv.Out, inv.JQ, out)
	case inv.Template != nil:
		return writeTemplate(inv.Out, inv.Template, out)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // answers quote <<<delimiters>>>; keep them readable
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(inv.Out, EscapeC1(b.String()))
	return err
}

// escapeC1 writes the C1 controls (U+0080–U+009F) that encoding/json
// leaves raw in strings as \u escapes: the same JSON to a parser, but a
// terminal showing it cannot take U+009B for the start of a command.
// (encoding/json already escapes C0 controls, ESC among them.)
func EscapeC1(s string) string {
	if !strings.ContainsFunc(s, isC1) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isC1(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// num formats a number without trailing zeros: 2, 1.5.
func Num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// PrintResult prints a strategy's result in the configured
// format: JSON, Markdown, rendered Markdown on a terminal, or plain text.
func (inv *Invocation) PrintResult(rep report.Report, result any, status, incomplete string) error {
	if inv.Settings.Output == "json" {
		return inv.WriteJSON(result, status, incomplete)
	}
	o := report.Options{Sections: inv.Opts.Show, Simulated: inv.Simulated(), Incomplete: incomplete,
		Subject: inv.Given.Question, Context: inv.Given.Lines}
	if status == StatusInterrupted {
		o.Interrupted = InterruptedBy(inv.Cmd.Context()).What()
	}
	if inv.Settings.Output == "markdown" {
		report.Markdown(inv.Out, rep, o)
		return nil
	}
	if tty, width := inv.StdoutTerminal(); tty {
		var md strings.Builder
		report.Markdown(&md, rep, o)
		out, err := report.Terminal(md.String(), width, !inv.Settings.NoColor)
		if err == nil {
			_, err = io.WriteString(inv.Out, out)
			return err
		}
		fmt.Fprintf(inv.ErrOut, "quorum: rendering the report failed (%v); plain text follows\n", err)
	} else {
		o.Width = inv.TextWidth()
	}
	report.Text(inv.Out, rep, o)
	return nil
}

// DefaultTextWidth is the width of plain text off a terminal without
// $COLUMNS: what a pager or an editor shows.
const DefaultTextWidth = 80

// TextWidth is the width plain text is wrapped at off a terminal: a pipe
// or a file has none of its own, so $COLUMNS when it is a positive
// number, else DefaultTextWidth.
func (inv *Invocation) TextWidth() int {
	if n, err := strconv.Atoi(strings.TrimSpace(inv.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return DefaultTextWidth
}

// StdoutTerminal reports whether stdout is a terminal that can take
// rendered Markdown, and its width.
func (inv *Invocation) StdoutTerminal() (bool, int) {
	tty, width := iostreams.TerminalWidth(inv.Out)
	if !tty || inv.Getenv("TERM") == "dumb" {
		return false, 0
	}
	return true, width
}

// ReportOnTerminal says whether the report a person reads went to a
// terminal, where the failures it lists are in view.
func (inv *Invocation) ReportOnTerminal() bool {
	tty, _ := inv.StdoutTerminal()
	return tty && inv.Settings.Output != "json"
}
