package connect

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

// apiFailureRE finds the structured failure that the Copilot CLI puts in
// the message of a request that its model API refused or could not reach
// (CLI 1.0.102: "… failed with message: GenericFailure, {…} (code -32603)").
var apiFailureRE = regexp.MustCompile(`GenericFailure, (\{.*\}) \(code -?\d+\)`)

// apiFailure is that structure: kind "http" with the response's status
// and body, or kind "network" with what went wrong.
type apiFailure struct {
	Kind       string `json:"kind"`
	Status     int    `json:"status"`
	StatusText string `json:"statusText"`
	Body       string `json:"body"`
	Message    string `json:"message"`
}

// ExplainAPIError says what a failed call to the CLI's model API means
// for the person running quorum: a token GitHub refused (saying which
// variable held it), a network that does not reach GitHub, or, for
// another failure, the CLI's words. ok is false when err is not such a
// failure.
func ExplainAPIError(inv *cmdutil.Invocation, what string, err error) (msg string, ok bool) {
	m := apiFailureRE.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	var f apiFailure
	if json.Unmarshal([]byte(m[1]), &f) != nil {
		return "", false
	}
	switch {
	case f.Kind == "network":
		return fmt.Sprintf("%s: the Copilot CLI could not reach GitHub Copilot (%s); check the network, and the proxy if you use one (HTTPS_PROXY)\n%s", what, f.Message, SimHint), true
	case f.Kind == "http" && (f.Status == 401 || f.Status == 403):
		said := fmt.Sprintf("HTTP %d %s", f.Status, f.StatusText)
		var body struct{ Message string }
		if json.Unmarshal([]byte(f.Body), &body) == nil && body.Message != "" {
			said += ": " + body.Message
		}
		for _, v := range tokenVars {
			if inv.Getenv(v) != "" {
				return fmt.Sprintf("%s: GitHub refused the token in $%s (%s): it is invalid or expired, or has no Copilot access; set a valid token, or unset it and run copilot login\n%s", what, v, said, SimHint), true
			}
		}
		return fmt.Sprintf("%s: GitHub refused the Copilot CLI's login (%s); run copilot login again\n%s", what, said, SimHint), true
	case f.Kind == "http":
		return fmt.Sprintf("%s: GitHub Copilot answered HTTP %d %s: %s", what, f.Status, f.StatusText, strings.TrimSpace(f.Body)), true
	}
	return "", false
}
