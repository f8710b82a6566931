package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/quorum"
)

// The tools' arguments. Every field has a description, which becomes the
// field's description in the tool's input schema; defaults from the user's
// configuration are added to the schema by addTools.

// DiscussInput are the discuss tool's arguments.
type DiscussInput struct {
	Topic               string   `json:"topic" jsonschema:"The question to discuss. Every model answers it, they review each other's answers anonymously, and the moderator writes a synthesis."`
	Models              []string `json:"models,omitempty" jsonschema:"Participant model ids, at least two (the models tool lists them). Default: the models of the user's quorum configuration, else the first three the Copilot CLI offers."`
	Moderator           string   `json:"moderator,omitempty" jsonschema:"The model that writes the synthesis; it need not be a participant. Default: the configured moderator, else the first participant."`
	NoReview            bool     `json:"noReview,omitempty" jsonschema:"Skip the peer review: the synthesis works from the answers alone. Faster and cheaper."`
	Reviewers           int      `json:"reviewers,omitempty" jsonschema:"How many of the other answers each model reviews; 0 for all of them."`
	PhaseTimeoutSeconds int      `json:"phaseTimeoutSeconds,omitempty" jsonschema:"Time limit of each phase, in seconds; a model still running then is dropped and the discussion goes on without it."`
	MaxPremium          float64  `json:"maxPremium,omitempty" jsonschema:"The most premium requests (GitHub Copilot's billing unit) the call may spend: the run shrinks to fit (fewer reviewers, rounds or models) and stops with what it has at the cap. Default: the user's max-premium setting, else no cap."`
	TimeoutSeconds      int      `json:"timeoutSeconds,omitempty" jsonschema:"Time limit of the whole call, in seconds. When it passes, the call returns what was collected, marked incomplete."`
}

// PlanInput are the plan tool's arguments.
type PlanInput struct {
	Task                string   `json:"task" jsonschema:"The task to plan. Every model proposes a plan (title, ordered steps, risks), the others score each plan, and the best one wins."`
	Models              []string `json:"models,omitempty" jsonschema:"Participant model ids, at least two (the models tool lists them). Default: the models of the user's quorum configuration, else the first three the Copilot CLI offers."`
	PhaseTimeoutSeconds int      `json:"phaseTimeoutSeconds,omitempty" jsonschema:"Time limit of each phase, in seconds; a model still running then is dropped and the planning goes on without it."`
	MaxPremium          float64  `json:"maxPremium,omitempty" jsonschema:"The most premium requests (GitHub Copilot's billing unit) the call may spend: the run shrinks to fit (fewer reviewers, rounds or models) and stops with what it has at the cap. Default: the user's max-premium setting, else no cap."`
	TimeoutSeconds      int      `json:"timeoutSeconds,omitempty" jsonschema:"Time limit of the whole call, in seconds. When it passes, the call returns what was collected, marked incomplete."`
}

// DebateInput are the debate tool's arguments.
type DebateInput struct {
	Claim               string   `json:"claim" jsonschema:"The claim to debate. Models in odd places of models argue for it, the others against, with an objection ledger; the moderator gives a verdict (for, against or undecided)."`
	Models              []string `json:"models,omitempty" jsonschema:"Debater model ids, at least two: the first, third, … argue for the claim, the second, fourth, … against it. Default: the models of the user's quorum configuration, else the first three the Copilot CLI offers."`
	Moderator           string   `json:"moderator,omitempty" jsonschema:"The model that gives the verdict. Default: the configured moderator, else the first debater."`
	Rounds              int      `json:"rounds,omitempty" jsonschema:"Rounds after the opening, 1 to 10; the debate ends sooner once no blocking objection stands."`
	PhaseTimeoutSeconds int      `json:"phaseTimeoutSeconds,omitempty" jsonschema:"Time limit of each phase, in seconds; a debater still running then is dropped and the debate goes on without it."`
	MaxPremium          float64  `json:"maxPremium,omitempty" jsonschema:"The most premium requests (GitHub Copilot's billing unit) the call may spend: the run shrinks to fit (fewer reviewers, rounds or models) and stops with what it has at the cap. Default: the user's max-premium setting, else no cap."`
	TimeoutSeconds      int      `json:"timeoutSeconds,omitempty" jsonschema:"Time limit of the whole call, in seconds. When it passes, the call returns what was collected, marked incomplete."`
}

// ReviewInput are the review tool's arguments.
type ReviewInput struct {
	Diff                string   `json:"diff,omitempty" jsonschema:"The change to review, as a unified diff (git diff's output), at most 1 MiB. Give either diff or base."`
	Base                string   `json:"base,omitempty" jsonschema:"Review git diff base..head of the git repository the server runs in (its working directory): a branch, tag or commit. Give either diff or base."`
	Head                string   `json:"head,omitempty" jsonschema:"The end of the base..head range: a branch, tag or commit. Default: HEAD. Only with base."`
	Context             []string `json:"context,omitempty" jsonschema:"Paths of files, relative to the server's working directory and inside it, that help to understand the change; the models read them but do not review them."`
	Models              []string `json:"models,omitempty" jsonschema:"Reviewer model ids, at least two (the models tool lists them). Default: the models of the user's quorum configuration, else the first three the Copilot CLI offers."`
	PhaseTimeoutSeconds int      `json:"phaseTimeoutSeconds,omitempty" jsonschema:"Time limit of the review phase, in seconds; a reviewer still running then is dropped."`
	MaxPremium          float64  `json:"maxPremium,omitempty" jsonschema:"The most premium requests (GitHub Copilot's billing unit) the call may spend: the run shrinks to fit (fewer reviewers, rounds or models) and stops with what it has at the cap. Default: the user's max-premium setting, else no cap."`
	TimeoutSeconds      int      `json:"timeoutSeconds,omitempty" jsonschema:"Time limit of the whole call, in seconds. When it passes, the call returns what was collected, marked incomplete."`
}

// AskInput are the ask tool's arguments.
type AskInput struct {
	Question       string  `json:"question" jsonschema:"The question for one model, asked in a session of its own with the Copilot CLI's tools switched off."`
	Model          string  `json:"model,omitempty" jsonschema:"The model to ask (the models tool lists them). Default: the first model of the user's quorum configuration, else the first the Copilot CLI offers."`
	MaxPremium     float64 `json:"maxPremium,omitempty" jsonschema:"The most premium requests (GitHub Copilot's billing unit) the question may cost: a model whose multiplier is more is not asked. Default: the user's max-premium setting, else no cap."`
	TimeoutSeconds int     `json:"timeoutSeconds,omitempty" jsonschema:"Time limit of the call, in seconds. When it passes, the call returns the answer so far, marked incomplete."`
}

// ModelsInput are the models tool's arguments: none.
type ModelsInput struct{}

// AskResult is the ask tool's structured content: the same JSON as
// `quorum ask -o json`'s result (internal/cli/ask's Result; a test of the
// command, internal/cli's mcp_test.go, keeps the two alike).
type AskResult struct {
	Model    string `json:"model"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	quorum.TurnCost
}

// ModelsResult is the models tool's structured content: the same JSON as
// `quorum models -o json`'s result.
type ModelsResult struct {
	Models []ModelInfo `json:"models"`
	// Allowance is the account's premium requests this period, when the
	// CLI reports them.
	Allowance *copilot.Quota `json:"allowance,omitempty"`
}

// ModelInfo is one model the CLI offers.
type ModelInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Multiplier is how many premium requests one request to the model
	// counts, when the CLI says.
	Multiplier *float64 `json:"multiplier,omitempty"`
}

// readOnly are the annotations of every tool: none changes anything (the
// models' sessions have no tools and are deleted after each turn; review
// only reads), but each asks models, outside this machine.
func readOnly(title string) *mcp.ToolAnnotations {
	no, open := false, true
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: &no, OpenWorldHint: &open}
}

// addTools adds the six tools, their input schemas carrying the user's
// defaults.
func (s *Server) addTools() error {
	st := s.opts.Settings
	defaults := map[string]any{}
	if len(st.Models) > 0 {
		defaults["models"] = st.Models
	}
	if st.Moderator != "" {
		defaults["moderator"] = st.Moderator
	}
	if st.Reviewers > 0 {
		defaults["reviewers"] = st.Reviewers
	}
	if !st.Review {
		defaults["noReview"] = true
	}
	defaults["rounds"] = orInt(st.Rounds, quorum.DefaultRounds)
	defaults["phaseTimeoutSeconds"] = seconds(orDur(st.PhaseTimeout, quorum.DefaultPhaseTimeout))
	defaults["timeoutSeconds"] = seconds(orDur(st.Timeout, quorum.DefaultTimeout))
	askDefaults := map[string]any{"timeoutSeconds": defaults["timeoutSeconds"]}
	if len(st.Models) > 0 {
		askDefaults["model"] = st.Models[0]
	}

	var errs []error
	add := func(err error) { errs = append(errs, err) }
	add(addTool(s, &mcp.Tool{Name: "discuss", Annotations: readOnly("Discuss a question with several models"),
		Description: "Ask several models one question at once: every model answers, they review each other's answers anonymously (scores, strengths, weaknesses, a ranking), and a moderator writes a synthesis (conclusion, key points, consensus, disagreements). Returns every stage as structured content (quorum's DiscussResult) and a Markdown report."},
		defaults, s.discuss))
	add(addTool(s, &mcp.Tool{Name: "plan", Annotations: readOnly("Plan a task with several models"),
		Description: "Ensemble planning: every model proposes a plan (title, ordered steps, risks), every other model scores each plan, and the plan with the best mean score wins. Returns the proposals, votes, standings and the winning plan as structured content (quorum's PlanResult) and a Markdown report."},
		defaults, s.plan))
	add(addTool(s, &mcp.Tool{Name: "debate", Annotations: readOnly("Debate a claim with several models"),
		Description: "A structured debate: proponents argue for the claim, opponents raise objections (blocking, major, minor) into a ledger, rounds of answers and rulings follow until no blocking objection stands, and a moderator gives a verdict (for, against, undecided) with what would change it. Returns every turn, the ledger and the verdict as structured content (quorum's DebateResult) and a Markdown report."},
		defaults, s.debate))
	add(addTool(s, &mcp.Tool{Name: "review", Annotations: readOnly("Review a code change with several models"),
		Description: "Every model reviews a code change on its own; the findings (file, lines, severity blocking/major/minor, category, explanation, suggested fix) are merged across models and ranked by severity, then agreement. The change is a unified diff given as text, or base (and head) of the git repository the server runs in. Returns each model's findings and the merged findings as structured content (quorum's ReviewResult) and a Markdown report."},
		defaults, s.review))
	add(addTool(s, &mcp.Tool{Name: "ask", Annotations: readOnly("Ask one model"),
		Description: "Ask one model one question, in a session of its own with the Copilot CLI's tools switched off. Returns the answer, its time and token usage as structured content ({model, question, answer, elapsedMs, usage}) and the answer as text."},
		askDefaults, s.ask))
	add(addTool(s, &mcp.Tool{Name: "models", Annotations: readOnly("List the models"),
		Description: "List the models the Copilot CLI offers: the ids that the other tools' models, moderator and model arguments take, their names, and how many premium requests one request to each counts. Returns {models: [{id, name, multiplier}]} and a Markdown table."},
		nil, s.models))
	return errors.Join(errs...)
}

// addTool adds a tool whose input schema is inferred from In (every
// field's description from its jsonschema tag) with defaults set, and
// whose output schema is inferred from Out.
func addTool[In, Out any](s *Server, t *mcp.Tool, defaults map[string]any, f toolFunc[In, Out]) error {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("mcpserver: the %s tool's input schema: %w", t.Name, err)
	}
	for name, p := range in.Properties {
		if p.Description == "" {
			return fmt.Errorf("mcpserver: the %s tool's argument %s has no description", t.Name, name)
		}
		if v, ok := defaults[name]; ok {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			p.Default = b
		}
	}
	t.InputSchema = in
	rt := reflect.TypeFor[Out]()
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	out, err := jsonschema.ForType(rt, nil)
	if err != nil {
		return fmt.Errorf("mcpserver: the %s tool's output schema: %w", t.Name, err)
	}
	if err := fixArgument(out); err != nil {
		return fmt.Errorf("mcpserver: the %s tool's output schema: %w", t.Name, err)
	}
	t.OutputSchema = out
	mcp.AddTool(s.mcp, t, handler(s, t.Name, f))
	return nil
}

// fixArgument adds the argument field of a debate's turns, which
// jsonschema-go v0.4.3 drops: quorum.DebateTurn embeds quorum.Argument,
// whose field of the same name (Argument.Argument) it takes for the
// embedded struct itself. Without it every debate result would fail the
// SDK's check against the output schema.
func fixArgument(s *jsonschema.Schema) error {
	turns, ok := s.Properties["turns"]
	if !ok || s.Properties["ledger"] == nil { // not a debate's result
		return nil
	}
	items := turns.Items
	if items == nil || items.Properties == nil || items.Properties["answers"] == nil {
		return errors.New("a debate's turns are not the objects expected; update fixArgument")
	}
	if _, ok := items.Properties["argument"]; !ok {
		items.Properties["argument"] = &jsonschema.Schema{Type: "string"}
		items.Required = append(items.Required, "argument")
	}
	return nil
}

func orInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func orDur(v, def time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return def
}

func seconds(d time.Duration) int { return int((d + time.Second - 1) / time.Second) }

// argError is a tool error for arguments that cannot be used: the message
// says what to change.
func argError(format string, args ...any) error { return fmt.Errorf(format, args...) }

// limits turns the timeout arguments into durations, refusing nonsense.
func limits(phase, total int) (time.Duration, time.Duration, error) {
	if phase < 0 || total < 0 {
		return 0, 0, argError("phaseTimeoutSeconds and timeoutSeconds must be positive numbers of seconds (or left out for the defaults)")
	}
	return time.Duration(phase) * time.Second, time.Duration(total) * time.Second, nil
}

// runCtx bounds a run by its timeout, with a cause that says what to do.
func runCtx(ctx context.Context, tool string, timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%w: the %s call took longer than its timeout (%v); what was collected is returned — raise timeoutSeconds, or lower phaseTimeoutSeconds so that slow models are dropped sooner",
		quorum.ErrTimeout, tool, timeout))
}
