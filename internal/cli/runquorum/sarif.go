package runquorum

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/quorum"
)

// This file writes a review's findings as SARIF 2.1.0 (the OASIS Static
// Analysis Results Interchange Format), which code scanning in CI shows on
// the lines of a change: one run of the tool "quorum", a rule per finding
// category ("quorum/security"), a result per merged finding.

const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	quorumURI    = "https://github.com/quorum-go/quorum"
)

type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	Name             string       `json:"name"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

// sarifInvocation says whether the review ran to its end; a review that
// failed or was interrupted has its failures as notifications.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// PartialFingerprints let code scanning follow a finding from run to
	// run: its file, category and first line, not the models' words,
	// which change every time.
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          sarifProperties   `json:"properties"`
}

type sarifProperties struct {
	ID        string   `json:"quorumId"`
	Severity  string   `json:"severity"`
	Agreement int      `json:"agreement"`
	Models    []string `json:"models"`
	// Scope is "change" for a remark on the change as a whole, located at
	// its first file.
	Scope string `json:"scope,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
}

// sarifLevels map severities to SARIF's levels.
var sarifLevels = map[quorum.Severity]string{
	quorum.SeverityBlocking: "error",
	quorum.SeverityMajor:    "warning",
	quorum.SeverityMinor:    "note",
}

// BuildSARIF makes the SARIF log of a review; r nil is a review of
// nothing, with no results.
func BuildSARIF(version string, r *quorum.ReviewResult, complete bool) SARIFLog {
	run := sarifRun{
		Tool:        sarifTool{Driver: sarifDriver{Name: "quorum", Version: version, InformationURI: quorumURI, Rules: []sarifRule{}}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: complete, ToolExecutionNotifications: []sarifNotification{}}},
		Results:     []sarifResult{},
	}
	if r != nil {
		if r.Error != "" {
			run.Invocations[0].ToolExecutionNotifications = append(run.Invocations[0].ToolExecutionNotifications,
				sarifNotification{Level: "error", Message: sarifMessage{Text: strings.TrimPrefix(r.Error, "quorum: ")}})
		}
		for _, f := range r.Failures {
			run.Invocations[0].ToolExecutionNotifications = append(run.Invocations[0].ToolExecutionNotifications,
				sarifNotification{Level: "warning", Message: sarifMessage{Text: fmt.Sprintf("%s failed in the %s phase (%s): %s", f.Model, f.Phase, f.Kind, strings.TrimPrefix(f.Error, "quorum: "))}})
		}
		first := ""
		if len(r.Change.Files) > 0 {
			first = r.Change.Files[0].Path
		}
		rules := map[string]int{}
		for _, f := range r.Findings {
			id := "quorum/" + f.Category
			idx, ok := rules[id]
			if !ok {
				idx = len(run.Tool.Driver.Rules)
				rules[id] = idx
				run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
					ID: id, Name: strings.ToUpper(f.Category[:1]) + f.Category[1:],
					ShortDescription: sarifMessage{Text: "quorum review findings of category " + f.Category},
				})
			}
			run.Results = append(run.Results, sarifFinding(f, id, idx, first))
		}
	}
	return SARIFLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}
}

// sarifFinding is one merged finding as a SARIF result. Code scanning
// refuses a result without a location, so a remark on the change as a
// whole is located at the change's first file, where a reader starts,
// and says so in its scope.
func sarifFinding(f quorum.MergedFinding, rule string, idx int, first string) sarifResult {
	text := f.Explanation
	if f.Suggestion != "" {
		text += "\n\nSuggested fix: " + f.Suggestion
	}
	text += fmt.Sprintf("\n\n(%s, %s; reported by %s: %s)", f.ID, f.Severity, Plural(f.Agreement, "model"), strings.Join(f.Models, ", "))
	file, scope := f.File, ""
	if file == "" {
		file, scope = first, "change"
	}
	loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: strings.ReplaceAll(file, `\`, "/")}).EscapedPath()}}
	if f.StartLine > 0 {
		loc.Region = &sarifRegion{StartLine: f.StartLine, EndLine: max(f.EndLine, f.StartLine)}
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", file, f.Category, f.StartLine)
	return sarifResult{
		RuleID: rule, RuleIndex: idx, Level: sarifLevels[f.Severity],
		Message:             sarifMessage{Text: text},
		Locations:           []sarifLocation{{PhysicalLocation: loc}},
		PartialFingerprints: map[string]string{"quorumFinding/v1": fmt.Sprintf("%016x", h.Sum64())},
		Properties:          sarifProperties{ID: f.ID, Severity: string(f.Severity), Agreement: f.Agreement, Models: f.Models, Scope: scope},
	}
}

// WriteSARIF writes --sarif's file, if asked for. Models' text is kept
// whole; as in -o json, no control character is left raw, so the file is
// safe to show on a terminal.
func WriteSARIF(inv *cmdutil.Invocation, r *quorum.ReviewResult, complete bool) error {
	path := inv.Opts.SARIF
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(BuildSARIF(inv.Version, r, complete)); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(cmdutil.EscapeC1(b.String())), 0o644); err != nil {
		return fmt.Errorf("writing the SARIF file: %w", err)
	}
	return nil
}

// Plural is "1 file", "2 files".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
