package cmdutil

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/itchyny/gojq"
	"github.com/quorum-go/quorum/internal/sanitize"
)

// This file is --jq, as gh has it: a jq expression run over the command's
// JSON output (the envelope, or the fields --json picked), by gojq built
// into quorum, so that no jq need be installed. Each result goes on a
// line of its own: a string as its text (jq -r), anything else as JSON.

// compileJQ compiles --jq's expression; a mistake in it is a usage error,
// told before anything runs. The expression sees no environment ($ENV is
// empty) and reads no other input.
func compileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, Usagef("--jq: %v", err)
	}
	code, err := gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return nil }))
	if err != nil {
		return nil, Usagef("--jq: %v", err)
	}
	return code, nil
}

// writeJQ runs code over v, the JSON output, and writes its results to w.
// Strings are cleaned for the terminal as every text of a model is.
func writeJQ(ctx context.Context, w io.Writer, code *gojq.Code, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var in any
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	var out bytes.Buffer
	iter := code.RunWithContext(ctx, in)
	for {
		x, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := x.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break
			}
			w.Write(out.Bytes())
			return fmt.Errorf("--jq: %v", err)
		}
		if s, ok := x.(string); ok {
			out.WriteString(sanitize.Text(s))
			out.WriteByte('\n')
			continue
		}
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetIndent("", "  ")
		e.SetEscapeHTML(false)
		if err := e.Encode(x); err != nil {
			return fmt.Errorf("--jq: %v", err)
		}
		out.WriteString(EscapeC1(enc.String()))
	}
	_, err = w.Write(out.Bytes())
	return err
}

// compileTemplate parses --template's Go template, as gh's: it runs over
// the JSON output read as JSON (fields by their JSON names: {{.status}},
// {{range .result.models}}{{.id}}{{"\n"}}{{end}}), with join to join a
// list. A mistake in it is a usage error.
func compileTemplate(text string) (*template.Template, error) {
	t, err := template.New("--template").Option("missingkey=zero").Funcs(template.FuncMap{
		"join": func(sep string, xs []any) string {
			s := make([]string, len(xs))
			for i, x := range xs {
				s[i] = fmt.Sprint(x)
			}
			return strings.Join(s, sep)
		},
	}).Parse(text)
	if err != nil {
		return nil, Usagef("--template: %v", strings.TrimPrefix(err.Error(), "template: --template:"))
	}
	return t, nil
}

// writeTemplate runs t over v, the JSON output, and writes the result to
// w, cleaned for the terminal.
func writeTemplate(w io.Writer, t *template.Template, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var in any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // 2830 tokens, not 2.83e+03
	if err := dec.Decode(&in); err != nil {
		return err
	}
	var out strings.Builder
	if err := t.Execute(&out, in); err != nil {
		return fmt.Errorf("--template: %v", strings.TrimPrefix(err.Error(), "template: --template:"))
	}
	_, err = io.WriteString(w, sanitize.Text(out.String()))
	return err
}
