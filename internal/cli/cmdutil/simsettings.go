package cmdutil

import (
	"fmt"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/internal/sanitize"
)

// This file is what the sim setting does to the others: the models a
// person configured for the Copilot CLI (quorum config set models gpt-5,…)
// are not the simulator's, and would make every --sim run fail.

// setAsideForSim sets aside, on a simulated run (--sim, or the sim
// setting, read into Opts.Sim), the configured models and moderator that
// the simulator does not offer, saying so on stderr.
func (inv *Invocation) setAsideForSim() {
	if !inv.Opts.Sim || inv.SimModels == nil {
		return
	}
	var offered []string
	for _, m := range inv.SimModels() {
		offered = append(offered, m.ID)
	}
	// Models named on the command line are this run's choice: a name the
	// simulator does not offer is a mistake, told as one when the models
	// are resolved.
	if inv.uses("models") && !inv.FlagGiven("model") && len(inv.Settings.Models) > 0 {
		if missing := notOffered(offered, inv.Settings.Models...); len(missing) > 0 {
			inv.noteSetAside("models", inv.Settings.Models, missing, "its own models take part instead")
			inv.Settings.Models = nil
		}
	}
	if inv.uses("moderator") && !inv.FlagGiven("moderator") && inv.Settings.Moderator != "" {
		if missing := notOffered(offered, inv.Settings.Moderator); len(missing) > 0 {
			inv.noteSetAside("moderator", missing, missing, "its own moderator takes part instead")
			inv.Settings.Moderator = ""
		}
	}
}

// noteSetAside tells, on stderr, that the setting key (its value named)
// is set aside for this run, and why.
func (inv *Invocation) noteSetAside(key string, named, missing []string, instead string) {
	which := "them"
	switch {
	case len(named) == 1:
		which = "it"
	case len(missing) < len(named):
		which = strings.Join(missing, ", ")
	}
	fmt.Fprintf(inv.ErrOut, "quorum: note: setting aside the %s in %s (%s) for this simulated run: the simulator does not offer %s, so %s\n",
		key, settingSource(inv.Loaded.Origin(key)), sanitize.Line(strings.Join(named, ", ")), sanitize.Line(which), instead)
}

// settingSource names where a setting's value came from, for a person.
func settingSource(o config.Origin) string {
	switch o.Source {
	case config.SourceFile:
		return "the config file " + o.Detail
	case config.SourceEnv:
		return "$" + o.Detail
	case config.SourceFlag:
		return o.Detail
	}
	return "the defaults"
}

// notOffered lists the models that are not among offered, once each.
func notOffered(offered []string, models ...string) []string {
	var out []string
	for _, m := range models {
		if !slices.Contains(offered, m) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
