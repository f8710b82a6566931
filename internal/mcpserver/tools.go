package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/report"
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
	TimeoutSeconds      int      `json:"timeoutSeconds,omitempty" jsonschema:"Time limit of the whole call, in seconds. When it passes, the call returns what was collected, marked incomplete."`
}

// PlanInput are the plan tool's arguments.
type PlanInput struct {
	Task                string   `json:"task" jsonschema:"The task to plan. Every model proposes a plan (title, ordered steps, risks), the others score each plan, and the best one wins."`
	Models              []string `json:"models,omitempty" jsonschema:"Participant model ids, at least two (the models tool lists them). Default: the models of the user's quorum configuration, else the first three the Copilot CLI offers."`
	PhaseTimeoutSeconds int      `json:"phaseTimeoutSeconds,omitempty" jsonschema:"Time limit of each phase, in seconds; a model still running then is dropped and the planning goes on without it."`
	TimeoutSeconds      int      `json:"timeoutSeconds,omitempty" jsonschema:"Time limit of the whole call, in seconds. When it passes, the call returns what was collected, marked incomplete."`
}

// DebateInput are the debate tool's arguments.
type DebateInput struct {
	Claim               string   `json:"claim" jsonschema:"The claim to debate. Models in odd places of models argue for it, the others against, with an objection ledger; the moderator gives a verdict (for, against or undecided)."`
	Models              []string `json:"models,omitempty" jsonschema:"Debater model ids, at least two: the first, third, … argue for the claim, the second, fourth, … against it. Default: the models of the user's quorum configuration, else the first three the Copilot CLI offers."`
	Moderator           string   `json:"moderator,omitempty" jsonschema:"The model that gives the verdict. Default: the configured moderator, else the first debater."`
	Rounds              int      `json:"rounds,omitempty" jsonschema:"Rounds after the opening, 1 to 10; the debate ends sooner once no blocking objection stands."`
	PhaseTimeoutSeconds int      `json:"phaseTimeoutSeconds,omitempty" jsonschema:"Time limit of each phase, in seconds; a debater still running then is dropped and the debate goes on without it."`
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
	TimeoutSeconds      int      `json:"timeoutSeconds,omitempty" jsonschema:"Time limit of the whole call, in seconds. When it passes, the call returns what was collected, marked incomplete."`
}

// AskInput are the ask tool's arguments.
type AskInput struct {
	Question       string `json:"question" jsonschema:"The question for one model, asked in a session of its own with the Copilot CLI's tools switched off."`
	Model          string `json:"model,omitempty" jsonschema:"The model to ask (the models tool lists them). Default: the first model of the user's quorum configuration, else the first the Copilot CLI offers."`
	TimeoutSeconds int    `json:"timeoutSeconds,omitempty" jsonschema:"Time limit of the call, in seconds. When it passes, the call returns the answer so far, marked incomplete."`
}

// ModelsInput are the models tool's arguments: none.
type ModelsInput struct{}

// AskResult is the ask tool's structured content: the same JSON as
// `quorum ask -o json`'s result (internal/cli's askResult; a test there
// keeps the two alike).
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

func (s *Server) discuss(ctx context.Context, c *call, in DiscussInput) (*mcp.CallToolResult, *quorum.DiscussResult, error) {
	if strings.TrimSpace(in.Topic) == "" {
		return nil, nil, argError("topic is empty; give the question to discuss")
	}
	if in.Reviewers < 0 {
		return nil, nil, argError("reviewers must be 0 (every other answer) or a positive number")
	}
	cfg, err := s.quorumConfig(in.PhaseTimeoutSeconds, in.TimeoutSeconds)
	if err != nil {
		return nil, nil, err
	}
	cfg.NoReview, cfg.AnswersPerReviewer = in.NoReview, in.Reviewers
	return runStrategy(ctx, c, "discussion", in.Models, in.Moderator, true, cfg, func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*quorum.DiscussResult, error) {
		return quorum.Discuss(ctx, b, in.Topic, cfg)
	}, report.Discuss, func(r *quorum.DiscussResult) *quorum.Outcome { return &r.Outcome })
}

func (s *Server) plan(ctx context.Context, c *call, in PlanInput) (*mcp.CallToolResult, *quorum.PlanResult, error) {
	if strings.TrimSpace(in.Task) == "" {
		return nil, nil, argError("task is empty; give the task to plan")
	}
	cfg, err := s.quorumConfig(in.PhaseTimeoutSeconds, in.TimeoutSeconds)
	if err != nil {
		return nil, nil, err
	}
	return runStrategy(ctx, c, "plan", in.Models, "", false, cfg, func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*quorum.PlanResult, error) {
		return quorum.Plan(ctx, b, in.Task, cfg)
	}, report.Plan, func(r *quorum.PlanResult) *quorum.Outcome { return &r.Outcome })
}

func (s *Server) debate(ctx context.Context, c *call, in DebateInput) (*mcp.CallToolResult, *quorum.DebateResult, error) {
	if strings.TrimSpace(in.Claim) == "" {
		return nil, nil, argError("claim is empty; give the claim to debate")
	}
	if in.Rounds < 0 || in.Rounds > quorum.MaxRounds {
		return nil, nil, argError("rounds must be between 1 and %d (or left out for the default)", quorum.MaxRounds)
	}
	cfg, err := s.quorumConfig(in.PhaseTimeoutSeconds, in.TimeoutSeconds)
	if err != nil {
		return nil, nil, err
	}
	cfg.Rounds = in.Rounds
	return runStrategy(ctx, c, "debate", in.Models, in.Moderator, true, cfg, func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*quorum.DebateResult, error) {
		return quorum.Debate(ctx, b, in.Claim, cfg)
	}, report.Debate, func(r *quorum.DebateResult) *quorum.Outcome { return &r.Outcome })
}

func (s *Server) review(ctx context.Context, c *call, in ReviewInput) (*mcp.CallToolResult, *quorum.ReviewResult, error) {
	ch, err := s.readChange(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.quorumConfig(in.PhaseTimeoutSeconds, in.TimeoutSeconds)
	if err != nil {
		return nil, nil, err
	}
	return runStrategy(ctx, c, "review", in.Models, "", false, cfg, func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*quorum.ReviewResult, error) {
		return quorum.Review(ctx, b, ch, cfg)
	}, report.Review, func(r *quorum.ReviewResult) *quorum.Outcome { return &r.Outcome })
}

// quorumConfig is a run's Config from the settings and the call's limits.
func (s *Server) quorumConfig(phaseSeconds, totalSeconds int) (quorum.Config, error) {
	phase, total, err := limits(phaseSeconds, totalSeconds)
	if err != nil {
		return quorum.Config{}, err
	}
	st := s.opts.Settings
	return quorum.Config{
		PhaseTimeout:   orDur(phase, orDur(st.PhaseTimeout, quorum.DefaultPhaseTimeout)),
		Timeout:        orDur(total, orDur(st.Timeout, quorum.DefaultTimeout)),
		MaxConcurrency: orInt(st.Concurrency, quorum.DefaultMaxConcurrency),
		CloseTimeout:   s.opts.CloseTimeout,
	}, nil
}

// runStrategy runs one of quorum's strategies for a call: the CLI, the
// models checked, a slot, progress, then the result with its report.
func runStrategy[R any](ctx context.Context, c *call, noun string, models []string, moderator string, moderated bool, cfg quorum.Config,
	run func(context.Context, quorum.Backend, quorum.Config) (*R, error), rep func(*R) report.Report, outcome func(*R) *quorum.Outcome,
) (*mcp.CallToolResult, *R, error) {
	s := c.s
	ctx, cancel := runCtx(ctx, c.tool, cfg.Timeout)
	defer cancel()
	release, err := s.slot(ctx, c.tool)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	defer release()
	inst, err := s.clis.get(ctx)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	offered, err := offeredModels(ctx, inst.client)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	cfg.Models, cfg.Moderator, err = s.resolveQuorum(offered, models, moderator, moderated)
	if err != nil {
		return nil, nil, err
	}
	cfg.Progress = c.progress.event
	r, runErr := run(ctx, quorum.Copilot(inst.client), cfg)
	if r == nil {
		if runErr == nil {
			runErr = errors.New("the run returned no result")
		}
		if errors.Is(runErr, quorum.ErrInvalidConfig) {
			return nil, nil, argError("%s", strings.TrimPrefix(runErr.Error(), "quorum: "))
		}
		return nil, nil, c.notRun(ctx, runErr)
	}
	out := outcome(r)
	status, incomplete := statusOf(noun, out, runErr, ctx, inst)
	var md strings.Builder
	report.Markdown(&md, rep(r), report.Options{Simulated: s.opts.Simulated, Incomplete: incomplete})
	res := &mcp.CallToolResult{Meta: mcp.Meta{"status": status, "simulated": s.opts.Simulated}}
	if incomplete != "" {
		res.IsError = true
		res.Content = append(res.Content, &mcp.TextContent{Text: incomplete + " " + advice(runErr, inst)})
	}
	res.Content = append(res.Content, &mcp.TextContent{Text: md.String()})
	return res, r, nil
}

// notRun is the tool error of a call that stopped before its run started:
// the CLI would not start, the models could not be listed, or the call was
// cancelled or timed out while it waited.
func (c *call) notRun(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
		if errors.Is(err, quorum.ErrTimeout) {
			return fmt.Errorf("%s before any model was asked", strings.TrimPrefix(err.Error(), "quorum: time limit reached: "))
		}
	}
	if errors.Is(err, copilot.ErrStopped) {
		return fmt.Errorf("the Copilot CLI stopped (%v); the next call starts a new one: call the tool again", err)
	}
	return err
}

// statusOf is how a run ended, as the JSON envelope of `quorum … -o json`
// says it (ok, degraded, failed, interrupted), and, when it did not
// finish, why.
func statusOf(noun string, out *quorum.Outcome, runErr error, ctx context.Context, inst *cliInstance) (status, incomplete string) {
	phase := "before its first phase"
	if n := len(out.Phases); n > 0 {
		phase = "in the " + string(out.Phases[n-1].Phase) + " phase"
	}
	var tf *quorum.TooFewError
	switch {
	case runErr == nil && out.Degraded:
		return "degraded", ""
	case runErr == nil:
		return "ok", ""
	case inst.isDead():
		return "failed", fmt.Sprintf("The %s failed %s: the Copilot CLI stopped during the call.", noun, phase)
	case errors.Is(runErr, quorum.ErrTimeout) && pastDeadline(ctx):
		return "failed", fmt.Sprintf("The %s took longer than its timeout and was stopped %s; what was collected is below.", noun, phase)
	case ctx.Err() != nil:
		return "interrupted", fmt.Sprintf("The %s was cancelled %s.", noun, phase)
	case errors.As(runErr, &tf):
		return "failed", fmt.Sprintf("The %s failed %s: %s.", noun, phase, strings.TrimPrefix(tf.Error(), "quorum: "))
	}
	return "failed", fmt.Sprintf("The %s failed %s: %s.", noun, phase, strings.TrimPrefix(runErr.Error(), "quorum: "))
}

// pastDeadline reports whether ctx's deadline has passed: quorum's own
// Config.Timeout, the same as the call's, may fire a moment before ctx's.
func pastDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return errors.Is(ctx.Err(), context.DeadlineExceeded) || (ok && !time.Now().Before(d))
}

// advice is what to do after a run that did not finish.
func advice(runErr error, inst *cliInstance) string {
	switch {
	case inst.isDead():
		return "The server starts a new Copilot CLI on the next call: call the tool again."
	case errors.Is(runErr, quorum.ErrTimeout):
		return "Raise timeoutSeconds, or lower phaseTimeoutSeconds so that slow models are dropped sooner."
	case errors.Is(runErr, quorum.ErrTooFewModels):
		return "Check the model ids (the models tool lists them), raise phaseTimeoutSeconds, or name more models."
	}
	return "The report below shows what was collected and each model's failure."
}

// offeredModels lists the ids of the models the CLI offers.
func offeredModels(ctx context.Context, c *copilot.Client) ([]string, error) {
	ms, err := c.Models(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the Copilot CLI's models failed: %w; check the CLI's login (copilot login) and network", err)
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids, nil
}

// resolveQuorum returns the participants and the moderator of a run,
// checked against what the CLI offers, as the quorum command resolves
// them: the call's, else the configuration's, else (on the simulator) the
// simulated participants, else the first three offered.
func (s *Server) resolveQuorum(offered, models []string, moderator string, moderated bool) ([]string, string, error) {
	st := s.opts.Settings
	if len(models) == 0 {
		models = st.Models
	}
	if moderator == "" && moderated {
		moderator = st.Moderator
	}
	if s.opts.SimDefaults != nil {
		if parts, mod, ok := s.opts.SimDefaults(offered); ok {
			if len(models) == 0 {
				models = parts
			}
			if moderator == "" && moderated {
				moderator = mod
			}
		}
	}
	if len(models) == 0 {
		models = offered[:min(3, len(offered))]
	}
	if !moderated {
		moderator = ""
	}
	check := slices.Clone(models)
	if moderator != "" {
		check = append(check, moderator)
	}
	if err := checkOffered(offered, check...); err != nil {
		return nil, "", err
	}
	seen := map[string]bool{}
	for _, m := range models {
		if seen[m] {
			return nil, "", argError("model %s is named twice in models; name each participant once", m)
		}
		seen[m] = true
	}
	if len(models) < quorum.DefaultMinModels {
		return nil, "", argError("this tool needs at least %d models, got %d (%s); name more in models (the Copilot CLI offers: %s)",
			quorum.DefaultMinModels, len(models), strings.Join(models, ", "), strings.Join(offered, ", "))
	}
	return models, moderator, nil
}

// checkOffered refuses models that the CLI does not offer, listing those
// it does.
func checkOffered(offered []string, models ...string) error {
	var unknown []string
	for _, m := range models {
		if !slices.Contains(offered, m) && !slices.Contains(unknown, m) {
			unknown = append(unknown, m)
		}
	}
	if len(unknown) > 0 {
		return argError("unknown model %s; use one the Copilot CLI offers: %s", strings.Join(unknown, ", "), strings.Join(offered, ", "))
	}
	return nil
}

func (s *Server) ask(ctx context.Context, c *call, in AskInput) (*mcp.CallToolResult, *AskResult, error) {
	if strings.TrimSpace(in.Question) == "" {
		return nil, nil, argError("question is empty; give the question to ask")
	}
	_, timeout, err := limits(0, in.TimeoutSeconds)
	if err != nil {
		return nil, nil, err
	}
	timeout = orDur(timeout, orDur(s.opts.Settings.Timeout, quorum.DefaultTimeout))
	ctx, cancel := runCtx(ctx, c.tool, timeout)
	defer cancel()
	release, err := s.slot(ctx, c.tool)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	defer release()
	inst, err := s.clis.get(ctx)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	offered, err := offeredModels(ctx, inst.client)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	model := in.Model
	if model == "" && len(s.opts.Settings.Models) > 0 {
		model = s.opts.Settings.Models[0]
	}
	if model == "" {
		if len(offered) == 0 {
			return nil, nil, errors.New("the Copilot CLI offers no models; check its login (copilot login)")
		}
		model = offered[0]
	}
	if err := checkOffered(offered, model); err != nil {
		return nil, nil, err
	}
	c.progress.step("asking " + model)
	sess, err := inst.client.NewSession(ctx, copilot.SessionConfig{Model: model, BuiltinTools: copilot.NoBuiltinTools(), Permissions: copilot.DenyAll})
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.CloseTimeout)
		defer cancel()
		sess.Destroy(dctx)
	}()
	var streamed strings.Builder
	start := time.Now()
	r, runErr := sess.Stream(ctx, in.Question, copilot.TurnHandlers{OnDelta: func(d string) { streamed.WriteString(d) }})
	if r.Text == "" {
		r.Text = streamed.String() // cut short: what had streamed
	}
	u := quorum.Usage{Calls: 1, InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens,
		CacheReadTokens: r.Usage.CacheReadTokens, CacheWriteTokens: r.Usage.CacheWriteTokens, Cost: r.Usage.Cost}
	out := &AskResult{Model: model, Question: in.Question, Answer: r.Text, TurnCost: quorum.TurnCost{ElapsedMS: time.Since(start).Milliseconds(), Usage: u}}
	status := "ok"
	res := &mcp.CallToolResult{}
	if runErr != nil {
		res.IsError = true
		switch {
		case inst.isDead():
			status = "failed"
			res.Content = append(res.Content, &mcp.TextContent{Text: "The answer is incomplete: the Copilot CLI stopped during the call. The server starts a new one on the next call: call the tool again."})
		case errors.Is(context.Cause(ctx), quorum.ErrTimeout):
			status = "failed"
			res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("The answer is incomplete: the call took longer than its timeout (%v); raise timeoutSeconds.", timeout)})
		case ctx.Err() != nil:
			status = "interrupted"
			res.Content = append(res.Content, &mcp.TextContent{Text: "The answer is incomplete: the call was cancelled."})
		default:
			status = "failed"
			res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("The answer is incomplete: the turn of %s failed: %v. Check the model id (the models tool lists them) and the CLI's login.", model, runErr)})
		}
	}
	res.Meta = mcp.Meta{"status": status, "simulated": s.opts.Simulated}
	res.Content = append(res.Content, &mcp.TextContent{Text: r.Text})
	return res, out, nil
}

func (s *Server) models(ctx context.Context, c *call, _ ModelsInput) (*mcp.CallToolResult, *ModelsResult, error) {
	ctx, cancel := runCtx(ctx, c.tool, orDur(s.opts.Settings.Timeout, quorum.DefaultTimeout))
	defer cancel()
	inst, err := s.clis.get(ctx)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	ms, err := inst.client.Models(ctx)
	if err != nil {
		return nil, nil, c.notRun(ctx, fmt.Errorf("listing the Copilot CLI's models failed: %w; check the CLI's login (copilot login) and network", err))
	}
	out := &ModelsResult{Models: []ModelInfo{}}
	var md strings.Builder
	if s.opts.Simulated {
		md.WriteString("Simulated models (quorum mcp --sim).\n\n")
	}
	md.WriteString("| id | name | premium requests per request |\n| --- | --- | --- |\n")
	for _, m := range ms {
		info := ModelInfo{ID: m.ID, Name: m.Name}
		var full protocol.Model
		if json.Unmarshal(m.Raw, &full) == nil && full.Billing != nil {
			info.Multiplier = full.Billing.Multiplier
		}
		out.Models = append(out.Models, info)
		mult := "-"
		if info.Multiplier != nil {
			mult = fmt.Sprint(*info.Multiplier)
		}
		fmt.Fprintf(&md, "| %s | %s | %s |\n", cell(info.ID), cell(info.Name), mult)
	}
	return &mcp.CallToolResult{Meta: mcp.Meta{"status": "ok", "simulated": s.opts.Simulated},
		Content: []mcp.Content{&mcp.TextContent{Text: md.String()}}}, out, nil
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
