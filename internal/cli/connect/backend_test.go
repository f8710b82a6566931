package connect

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
)

// The CLI's failures to reach GitHub, as CLI 1.0.102 words them, become
// messages about the token or the network, each with the --sim hint.
func TestAPIErrorsExplained(t *testing.T) {
	refused := errors.New(`models.list: Request models.list failed with message: GenericFailure, {"kind":"http","status":401,"statusText":"Unauthorized","body":"{\"message\": \"Bad credentials\"}","hasRequestId":false} (code -32603)`)
	offline := errors.New(`models.list: Request models.list failed with message: GenericFailure, {"kind":"network","message":"error sending request for url (https://api.githubcopilot.com/models): dns error"} (code -32603)`)
	vars := map[string]string{}
	inv := &cmdutil.Invocation{Factory: &cmdutil.Factory{Getenv: func(k string) string { return vars[k] }}}
	for _, c := range []struct {
		env  map[string]string
		err  error
		want string
	}{
		{map[string]string{"GH_TOKEN": "x"}, refused, "listing: GitHub refused the token in $GH_TOKEN (HTTP 401 Unauthorized: Bad credentials): it is invalid or expired"},
		{nil, refused, "listing: GitHub refused the Copilot CLI's login (HTTP 401 Unauthorized: Bad credentials); run copilot login again"},
		{nil, offline, "listing: the Copilot CLI could not reach GitHub Copilot (error sending request for url (https://api.githubcopilot.com/models): dns error); check the network"},
	} {
		vars = c.env
		msg, ok := ExplainAPIError(inv, "listing", c.err)
		if !ok || !strings.HasPrefix(msg, c.want) || !strings.HasSuffix(msg, SimHint) {
			t.Errorf("%v, %v: %q", c.env, ok, msg)
		}
	}
	if _, ok := ExplainAPIError(inv, "listing", errors.New("session: boom")); ok {
		t.Errorf("an ordinary error was explained as an API failure")
	}
}

// A CLI that is not logged in: the message says to log in, or, when a
// token was given, that the token or the network failed.
func TestNotLoggedIn(t *testing.T) {
	srv := sim.NewServer(sim.Options{Models: simquorum.Models(), Unauthenticated: true})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	vars := map[string]string{}
	inv := &cmdutil.Invocation{Factory: &cmdutil.Factory{Getenv: func(k string) string { return vars[k] }}}
	err = RequireAuth(ctx, inv, c)
	if err == nil || !strings.Contains(err.Error(), "the Copilot CLI is not logged in (the CLI says: not authenticated (simulated)), or could not reach GitHub to check its login; run copilot login") ||
		!strings.HasSuffix(err.Error(), SimHint) {
		t.Errorf("no token: %v", err)
	}
	vars["GITHUB_TOKEN"] = "x"
	if err := RequireAuth(ctx, inv, c); err == nil || !strings.Contains(err.Error(), "could not log in with the token in $GITHUB_TOKEN") {
		t.Errorf("with a token: %v", err)
	}
}
