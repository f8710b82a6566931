package quorum

// This file is the JSON schema of a review's result, under the same rules
// as result.go: stable field names, durations in whole milliseconds in
// fields ending in "Ms", lists never null.

// ReviewResult is the result of Review.
type ReviewResult struct {
	// Change describes what was reviewed.
	Change ChangeSummary `json:"change"`
	// Models are the reviewers, in configured order.
	Models []string `json:"models"`
	// Inspections are the models' reviews that came back (parsed or not),
	// in configured model order. Reviews that failed are in Failures.
	Inspections []Inspection `json:"inspections"`
	// Findings are the findings of every usable inspection, merged (the
	// same finding from several models is one, with their agreement) and
	// ranked: by severity, then by how many models reported it, then by
	// file and line. After a run that failed or was cancelled, those of the
	// inspections that came in.
	Findings []MergedFinding `json:"findings"`
	Outcome
}

// ChangeSummary describes a change: its files and the context given.
type ChangeSummary struct {
	Files []ChangedFile `json:"files"`
	// Added and Deleted count the lines over every file.
	Added   int `json:"added"`
	Deleted int `json:"deleted"`
	// Context are the paths of the context files, in the order given.
	Context []string `json:"context"`
}

// ChangedFile is one file of a diff.
type ChangedFile struct {
	// Path is the file's path after the change (before it, for a deleted
	// file), without git's a/ and b/ prefixes.
	Path string `json:"path"`
	// OldPath is its path before a rename.
	OldPath string `json:"oldPath,omitempty"`
	// Status is "added", "deleted", "modified", "renamed" or "binary" (a
	// binary file whose contents the diff leaves out).
	Status  string `json:"status"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	// Hunks are the changed ranges, in the lines of the new file.
	Hunks []LineRange `json:"hunks"`
}

// LineRange is a range of lines, both ends included, from 1.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Inspection is one model's review of the change.
type Inspection struct {
	Model string `json:"model"`
	// Findings are what could be parsed from Raw, in the order written.
	Findings []Finding `json:"findings"`
	// RawReply's Problems also name what looks wrong (a file the change
	// does not touch).
	RawReply
	// Usable is false when nothing could be read (neither findings nor a
	// clear "no findings"); the inspection then counts as its model's
	// failure.
	Usable bool `json:"usable"`
	TurnCost
}

// Finding is one problem a model found in a change.
type Finding struct {
	// File is the path as the diff names it; "" for a remark on the change
	// as a whole.
	File string `json:"file"`
	// StartLine and EndLine are lines of the new file; 0 when the model
	// gave none.
	StartLine int      `json:"startLine"`
	EndLine   int      `json:"endLine"`
	Severity  Severity `json:"severity"`
	// Category is a lower-case word such as "bug", "security",
	// "performance"; "general" when the model gave none.
	Category    string `json:"category"`
	Explanation string `json:"explanation"`
	Suggestion  string `json:"suggestion"`
}

// MergedFinding is a finding as one or more models reported it.
type MergedFinding struct {
	// ID is "F1", "F2", … in rank order; Rank is its place, from 1.
	ID   string `json:"id"`
	Rank int    `json:"rank"`
	// Finding is the merged finding: the lines every report covers, the
	// severity most reports give (a tie going to the more severe; a
	// finding one model reported has its severity), the category most
	// reports give, and the explanation and suggestion of the first report
	// with that severity.
	Finding
	// Agreement is how many models reported it; Models names them, in
	// configured order.
	Agreement int      `json:"agreement"`
	Models    []string `json:"models"`
	// Reports are each model's own report of it.
	Reports []FindingReport `json:"reports"`
}

// FindingReport is one model's report of a merged finding.
type FindingReport struct {
	Model string `json:"model"`
	Finding
}

// fillLists replaces nil lists by empty ones, so the JSON has [] not null.
func (rv *ReviewResult) fillLists() {
	rv.Inspections = nonNil(rv.Inspections)
	rv.Findings = nonNil(rv.Findings)
	rv.Change.Files = nonNil(rv.Change.Files)
	rv.Change.Context = nonNil(rv.Change.Context)
	for i := range rv.Inspections {
		rv.Inspections[i].Findings = nonNil(rv.Inspections[i].Findings)
		rv.Inspections[i].Problems = nonNil(rv.Inspections[i].Problems)
	}
	for i := range rv.Findings {
		rv.Findings[i].Models = nonNil(rv.Findings[i].Models)
		rv.Findings[i].Reports = nonNil(rv.Findings[i].Reports)
	}
}
