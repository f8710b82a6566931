package report

import (
	"io"
	"strings"
)

// Reply writes, as plain text, one model's reply to a question (a chat's
// ask round): the model's name, marked when simulated, then its text,
// wrapped as an answer in a report is (o.Width), then why it is
// incomplete, if it is.
func Reply(w io.Writer, model, text string, o Options) {
	d := &textDoc{blocks: blocks{w: w}, width: o.Width}
	name := model
	if o.Simulated {
		name += " (simulated)"
	}
	d.para(name)
	if strings.TrimSpace(text) != "" {
		d.quote(text)
	}
	if o.Incomplete != "" {
		d.para(o.Incomplete)
	}
}
