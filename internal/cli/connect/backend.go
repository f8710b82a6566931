package connect

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/quorum"
)

// Connect returns a client: the Copilot CLI started as a child and logged
// in, or with --sim the simulator in-process. close releases it. Every
// error says what to do, in the command's terms (startError).
func Connect(ctx context.Context, inv *cmdutil.Invocation) (c *copilot.Client, close func(), err error) {
	if inv.Opts.Sim {
		srv := sim.NewServer(sim.Options{Models: inv.SimModels()})
		c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{Logger: &inv.Log})
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		return c, func() { c.Close(); srv.Close() }, nil
	}
	if _, err := FindCLI(inv); err != nil {
		return nil, nil, err
	}
	tr := copilot.Stdio
	if inv.Settings.Transport == "tcp" {
		tr = copilot.TCP
	}
	c, err = copilot.Start(ctx, ClientOptions(inv, tr))
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err // interrupted or timed out: no advice needed
		}
		return nil, nil, startError(inv, err)
	}
	if err := RequireAuth(ctx, inv, c); err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// SimHint ends every start-up failure: there is a way to try quorum anyway.
const SimHint = "To try quorum without the Copilot CLI or a login, add --sim."

// startError is a start-up failure for a person at the command line: the
// copilot package's errors name its Options fields, the command's name its
// flags; and every one ends with SimHint.
func startError(inv *cmdutil.Invocation, err error) error {
	msg := strings.TrimPrefix(err.Error(), "copilot: ")
	var ve *copilot.VersionError
	switch {
	case errors.As(err, &ve):
		msg = fmt.Sprintf("the Copilot CLI %s speaks protocol version %d, quorum speaks %d; install a matching CLI (npm install -g @github/copilot) or a newer quorum", ve.CLIVersion, ve.Got, ve.Want)
	case errors.Is(err, copilot.ErrStartTimeout):
		msg = "the Copilot CLI did not start in time (" + msg + "); run it alone (copilot --version) to see what it says, or add -v for the connection's log"
	}
	return fmt.Errorf("starting the Copilot CLI: %s\n%s", msg, SimHint)
}

// FindCLI returns the CLI binary the command would run: --cli-path (or
// COPILOT_CLI_PATH, or the config file), else copilot on PATH. Its error
// names where the path came from and how to install the CLI.
func FindCLI(inv *cmdutil.Invocation) (string, error) {
	if p := inv.Settings.CLIPath; p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			o := inv.Loaded.Origin("cli-path")
			from := o.Detail
			if o.Source == config.SourceEnv {
				from = "$" + from
			}
			return "", fmt.Errorf("the Copilot CLI named by %s (%s) cannot be run: %v; fix the path, or install the CLI with npm install -g @github/copilot\n%s",
				from, p, unwrapExec(err), SimHint)
		}
		return path, nil
	}
	path, err := exec.LookPath("copilot")
	if err != nil {
		return "", fmt.Errorf("the GitHub Copilot CLI was not found on PATH; install it with npm install -g @github/copilot, or name its binary with --cli-path or $COPILOT_CLI_PATH\n%s", SimHint)
	}
	return path, nil
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// tokenVars are the environment variables that hand the CLI a token, in
// its order of precedence (the SDK's own first: copilot passes it on).
var tokenVars = []string{"COPILOT_SDK_AUTH_TOKEN", "COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"}

// RequireAuth checks the CLI's login. The CLI says "not authenticated"
// both when it has no login and when the token it was given did not pass
// (invalid, expired, or GitHub out of reach), so a token in the
// environment changes the message: it is the token, or the network, that
// failed, and `copilot login` would not help.
func RequireAuth(ctx context.Context, inv *cmdutil.Invocation, c *copilot.Client) error {
	st, err := c.AuthStatus(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("asking the Copilot CLI for its login failed: %v\n%s", err, SimHint)
	}
	if st.IsAuthenticated {
		return nil
	}
	said := ""
	if st.StatusMessage != "" {
		said = fmt.Sprintf(" (the CLI says: %s)", st.StatusMessage)
	}
	for _, v := range tokenVars {
		if inv.Getenv(v) != "" {
			return fmt.Errorf("the Copilot CLI could not log in with the token in $%s%s: the token is invalid or expired, or GitHub could not be reached; check the token, and the network or proxy (HTTPS_PROXY)\n%s", v, said, SimHint)
		}
	}
	return fmt.Errorf("the Copilot CLI is not logged in%s, or could not reach GitHub to check its login; run copilot login, or set GH_TOKEN to a token with Copilot access\n%s", said, SimHint)
}

// ListModels lists the models the CLI offers. It is the first call to
// GitHub that a command makes, so it is where a refused token or a
// network that does not reach GitHub shows: the CLI's login check does
// not contact GitHub.
func ListModels(ctx context.Context, inv *cmdutil.Invocation, c *copilot.Client) ([]copilot.Model, error) {
	ms, err := c.Models(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("listing the CLI's models: %w", err)
		}
		if msg, ok := ExplainAPIError(inv, "listing the CLI's models", err); ok {
			return nil, errors.New(msg)
		}
		if inv.Opts.Sim {
			return nil, fmt.Errorf("listing the simulator's models: %w", err)
		}
		return nil, fmt.Errorf("listing the CLI's models: %w\n%s", err, SimHint)
	}
	return ms, nil
}

// Offered is what the CLI offers, listed once (models.list): its models'
// ids, in its order, and their premium-request multipliers.
type Offered struct {
	IDs         []string
	Multipliers quorum.Multipliers
}

// ListOffered lists the models the CLI offers.
func ListOffered(ctx context.Context, inv *cmdutil.Invocation, c *copilot.Client) (Offered, error) {
	ms, err := ListModels(ctx, inv, c)
	if err != nil {
		return Offered{}, err
	}
	o := Offered{IDs: make([]string, len(ms)), Multipliers: quorum.MultipliersOf(ms)}
	for i, m := range ms {
		o.IDs[i] = m.ID
	}
	return o, nil
}

// ResolveModel returns ask's model, checked against what the CLI offers;
// with none configured, the first it offers.
func ResolveModel(inv *cmdutil.Invocation, offered Offered) (string, error) {
	ids := offered.IDs
	if len(inv.Settings.Models) == 0 {
		if len(ids) == 0 {
			return "", fmt.Errorf("%s offers no models", offerer(inv))
		}
		return ids[0], nil
	}
	if len(inv.Settings.Models) > 1 && !inv.FlagGiven("model") {
		return "", cmdutil.Usagef("quorum ask asks one model, and the settings name %d (%s, from %s); pick one with -m",
			len(inv.Settings.Models), strings.Join(inv.Settings.Models, ", "), inv.Loaded.Origin("models").Detail)
	}
	if err := checkOffered(inv, ids, inv.Settings.Models[0]); err != nil {
		return "", err
	}
	return inv.Settings.Models[0], nil
}

// ResolveQuorum returns the participants and the moderator of a discussion
// or plan, checked against what the CLI offers. With no models configured
// they are the first three the CLI offers, or on --sim simquorum's
// participants; with no moderator configured it is the first participant,
// or on --sim simquorum's moderator ("" leaves the choice to quorum).
func ResolveQuorum(inv *cmdutil.Invocation, offered Offered) (models []string, moderator string, err error) {
	ids := offered.IDs
	models, moderator = inv.Settings.Models, inv.Settings.Moderator
	if inv.Opts.Sim {
		if parts, mod, ok := SimDefaults(ids); ok {
			if len(models) == 0 {
				models = parts
			}
			if moderator == "" {
				moderator = mod
			}
		}
	}
	if len(models) == 0 {
		models = ids[:min(3, len(ids))]
	}
	check := models
	if moderator != "" {
		check = append(slices.Clone(models), moderator)
	}
	if err := checkOffered(inv, ids, check...); err != nil {
		return nil, "", err
	}
	seen := map[string]bool{}
	for _, m := range models {
		if seen[m] {
			return nil, "", cmdutil.Usagef("model %s is named twice; name each participant once", m)
		}
		seen[m] = true
	}
	if len(models) < quorum.DefaultMinModels {
		return nil, "", cmdutil.Usagef("quorum %s needs at least %d participant models, got %d (%s); add some with -m (%s offers: %s)",
			inv.Name, quorum.DefaultMinModels, len(models), strings.Join(models, ", "), offerer(inv), strings.Join(ids, ", "))
	}
	return models, moderator, nil
}

// checkOffered reports the models that the CLI (or the simulator) does
// not offer, with the list of those it does.
func checkOffered(inv *cmdutil.Invocation, ids []string, models ...string) error {
	var unknown []string
	for _, m := range models {
		if !slices.Contains(ids, m) && !slices.Contains(unknown, m) {
			unknown = append(unknown, m)
		}
	}
	if len(unknown) > 0 {
		return cmdutil.Usagef("unknown model %s; %s offers: %s", strings.Join(unknown, ", "), offerer(inv), strings.Join(ids, ", "))
	}
	return nil
}

// offerer names what offers the models: the Copilot CLI, or on a
// simulated run the simulator, which answers in its place.
func offerer(inv *cmdutil.Invocation) string {
	if inv.Opts.Sim {
		return "the simulator"
	}
	return "the Copilot CLI"
}

// commandLiveness is how the command probes the CLI: a person waiting at a
// terminal should learn that a hung CLI is hung, not watch a spinner until
// the run's timeout. Pings are answered at once even by a busy CLI, so 30
// seconds without an answer means it is stuck.
var commandLiveness = copilot.Liveness{Interval: 10 * time.Second, Timeout: 30 * time.Second}

// ClientOptions are the options the command starts the Copilot CLI with.
func ClientOptions(inv *cmdutil.Invocation, tr copilot.Transport) copilot.Options {
	l := commandLiveness
	return copilot.Options{
		CLIPath:   inv.Settings.CLIPath,
		Args:      inv.Settings.CLIArgs,
		Transport: tr,
		Logger:    &inv.Log,
		Liveness:  &l,
	}
}
