package report

import (
	"fmt"
	"strings"
)

// sandbox shows the confinement the executor ran under and what it
// stopped: the policy's paths and network, the credentials masked, where
// the confinement was weaker than asked, and the sandbox's own denials.
// An unconfined run (--no-sandbox) says so, and nothing else.
func (r agent) sandbox(doc doc) {
	sb := r.a.Sandbox
	doc.heading(1, "Sandbox")
	if sb.Unconfined {
		doc.note("Unconfined (--no-sandbox): the executor's commands ran with your full rights — every file you can write, the network, your environment. The permission decisions still applied.")
		return
	}
	if !sb.Enabled {
		doc.note("The executor ran no sandboxed commands.")
		return
	}
	network := sb.Network
	if len(sb.AllowedHosts) > 0 {
		network += ": " + strings.Join(sb.AllowedHosts, ", ")
	}
	kv := [][2]string{
		{"Read-write", list(sb.ReadWrite)},
		{"Read-only", list(sb.ReadOnly)},
		{"Hidden", list(sb.Denied)},
		{"Network", network},
		{"Masked", list(sb.MaskedEnv)},
	}
	doc.fields(kv)
	for _, w := range sb.Warnings {
		doc.note("Warning: " + excerpt(w))
	}
	var rows [][]string
	for _, d := range sb.Decisions {
		if d.Outcome != "denied" && d.Outcome != "declined" {
			continue // the policy resolved, commands confined: not news
		}
		where := fmt.Sprint(d.Step)
		if d.Step == 0 {
			where = d.Round
		}
		what := d.DenialClass
		if what == "" {
			what = d.Control
		}
		rows = append(rows, []string{fmt.Sprint(len(rows) + 1), where, d.Kind, excerpt(what), d.Outcome})
	}
	if len(rows) == 0 {
		doc.note("The sandbox stopped nothing.")
		return
	}
	doc.table([]string{"#", "Step", "Record", "What", "Outcome"}, []bool{true, false, false, false, false}, rows)
}

// list joins paths or names for a field, "none" for none.
func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return excerpt(strings.Join(xs, ", "))
}
