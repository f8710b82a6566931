package protocol_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/schemacheck"
)

// The CLI the package was generated from, the one CI installs and the one
// the generate directive reads are one version.
func TestPinnedVersionsAgree(t *testing.T) {
	for file, re := range map[string]string{
		"../../.ci/install-copilot.sh": `(?m)^VERSION=(\S+)$`,
		"generate.go":                  `protogen -version (\S+)`,
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(re).FindSubmatch(b)
		if m == nil || string(m[1]) != protocol.CLIVersion {
			t.Errorf("%s pins %q; protocol.CLIVersion is %q", file, m, protocol.CLIVersion)
		}
	}
}

// recorder is a Caller that keeps the calls it is asked to make and
// answers each with a canned result.
type recorder struct {
	method string
	params json.RawMessage
	result string
	err    error
}

func (r *recorder) Call(_ context.Context, method string, params, result any) error {
	r.method = method
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	r.params = b
	if r.err != nil {
		return r.err
	}
	if result != nil && r.result != "" {
		return json.Unmarshal([]byte(r.result), result)
	}
	return nil
}

func TestSessionCallsFillInTheSessionID(t *testing.T) {
	s := schemacheck.Default(t)
	rec := &recorder{result: `{"modelId":"gpt-5"}`}
	rpc := protocol.NewSessionRPC(rec, "s-1")
	cur, err := rpc.Model.SwitchTo(context.Background(), protocol.SessionModelSwitchToParams{ModelID: "gpt-5"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.method != "session.model.switchTo" || cur == nil {
		t.Fatalf("called %s, got %+v", rec.method, cur)
	}
	var sent map[string]any
	if err := json.Unmarshal(rec.params, &sent); err != nil || sent["sessionId"] != "s-1" || sent["modelId"] != "gpt-5" {
		t.Fatalf("params %s", rec.params)
	}
	// What the typed call sends is what the CLI's schema accepts: optional
	// fields left unset are left out, not sent as zero values.
	if err := s.Params(rec.method, rec.params); err != nil {
		t.Errorf("params against the schema: %v", err)
	}

	// A call whose params are only the session id takes none.
	rec.result = `{"name":"n"}`
	if _, err := rpc.Name.Get(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rec.method != protocol.MethodSessionNameGet || string(rec.params) != `{"sessionId":"s-1"}` {
		t.Fatalf("%s %s", rec.method, rec.params)
	}
	if err := s.Params(rec.method, rec.params); err != nil {
		t.Errorf("%s params against the schema: %v (%s)", rec.method, err, rec.params)
	}
}

func TestServerCallsDecodeTheirResult(t *testing.T) {
	rec := &recorder{result: `{"message":"pong: hi","timestamp":"2026-11-22T10:00:00.000Z","protocolVersion":3}`}
	rpc := protocol.NewServerRPC(rec)
	res, err := rpc.Ping(context.Background(), protocol.PingRequest{Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.method != protocol.MethodPing || res.Timestamp != "2026-11-22T10:00:00.000Z" || res.ProtocolVersion != 3 {
		t.Fatalf("%s → %+v", rec.method, res)
	}
	rec.err = errors.New("boom")
	if _, err := rpc.Ping(context.Background(), protocol.PingRequest{}); !errors.Is(err, rec.err) {
		t.Fatalf("a failed call's error: %v", err)
	}
}

func TestZeroRPCValueSaysHowToBuildOne(t *testing.T) {
	var g protocol.ServerModelsRPC
	if _, err := g.List(context.Background(), protocol.ModelsListRequest{}); !errors.Is(err, protocol.ErrNoCaller) {
		t.Fatalf("err = %v", err)
	}
}

func TestEveryEventTypeDecodesToItsType(t *testing.T) {
	if len(protocol.EventTypes) < 100 {
		t.Fatalf("only %d event types", len(protocol.EventTypes))
	}
	for _, typ := range protocol.EventTypes {
		e := protocol.Event{Type: typ, Data: json.RawMessage(`{}`)}
		v, err := e.Decode()
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		if _, raw := v.(json.RawMessage); raw || v == nil || !e.Known() {
			t.Errorf("%s decoded to %T", typ, v)
		}
	}
	d, err := (&protocol.Event{Type: protocol.EventAssistantMessageDelta, Data: json.RawMessage(`{"messageId":"m","deltaContent":"hi"}`)}).Decode()
	if delta, ok := d.(*protocol.AssistantMessageDeltaData); err != nil || !ok || delta.DeltaContent != "hi" {
		t.Fatalf("delta: %#v, %v", d, err)
	}
}

func TestUnknownEventTypesPassThroughRaw(t *testing.T) {
	e := protocol.Event{Type: "future.kind", Data: json.RawMessage(`{"x":1}`)}
	v, err := e.Decode()
	if raw, ok := v.(json.RawMessage); err != nil || !ok || string(raw) != `{"x":1}` || e.Known() {
		t.Fatalf("%#v, %v", v, err)
	}
	if _, err := (&protocol.Event{Type: protocol.EventSessionIdle, Data: json.RawMessage(`[1]`)}).Decode(); err == nil {
		t.Fatal("data of the wrong shape decoded")
	}
	if _, err := protocol.DecodeEvent[protocol.AssistantMessageDeltaData](e, protocol.EventAssistantMessageDelta); err == nil {
		t.Fatal("DecodeEvent took an event of another type")
	}
}

func TestClientHandlersDispatch(t *testing.T) {
	ctx := context.Background()
	var h protocol.ClientHandlers
	if _, err := h.Handle(ctx, protocol.MethodHooksInvoke, nil); !errors.Is(err, protocol.ErrNoHandler) {
		t.Fatalf("no handler: %v", err)
	}
	if _, err := h.Handle(ctx, "no.such.request", nil); !errors.Is(err, protocol.ErrUnknownMethod) {
		t.Fatalf("unknown: %v", err)
	}
	var got *protocol.HookInvokeRequest
	h.HooksInvoke = func(_ context.Context, p *protocol.HookInvokeRequest) (*protocol.HookInvokeResponse, error) {
		got = p
		return &protocol.HookInvokeResponse{}, nil
	}
	if _, err := h.Handle(ctx, protocol.MethodHooksInvoke, json.RawMessage(`{"sessionId":"s","hookType":"x"}`)); err != nil || got == nil || got.SessionID != "s" {
		t.Fatalf("handled: %+v, %v", got, err)
	}
	if _, err := h.Handle(ctx, protocol.MethodHooksInvoke, json.RawMessage(`"not an object"`)); !errors.Is(err, protocol.ErrInvalidParams) {
		t.Fatalf("bad params: %v", err)
	}
	if len(protocol.ClientMethods) != 38 {
		t.Errorf("%d client methods, the schema of 1.0.102 has 38", len(protocol.ClientMethods))
	}
}

// A decline is an answer the CLI's schema accepts; a request with no way
// to say no has none.
func TestDeclinesAreValidAnswers(t *testing.T) {
	s := schemacheck.Default(t)
	params := map[string]string{
		protocol.MethodHooksInvoke:          `{"sessionId":"s","hookType":"preToolUse","input":{}}`,
		protocol.MethodSkillProviderList:    `{"sessionId":"s"}`,
		protocol.MethodInstallationsConfirm: `{"confirmationId":"c-1","operationId":"o","expiresAt":"2026-11-23T00:00:00Z","reviewFingerprint":"f-1"}`,
	}
	declined := 0
	for _, method := range protocol.ClientMethods {
		res, ok := protocol.Decline(method, json.RawMessage(params[method]))
		if !ok {
			continue
		}
		declined++
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Result(method, b); err != nil {
			t.Errorf("%s: decline %s: %v", method, b, err)
		}
	}
	if declined != len(params) {
		t.Errorf("%d declines, want %d", declined, len(params))
	}
	res, _ := protocol.Decline(protocol.MethodInstallationsConfirm, json.RawMessage(params[protocol.MethodInstallationsConfirm]))
	if r := res.(*protocol.InstallationConfirmationResponse); r.ConfirmationID != "c-1" || r.Decision != protocol.InstallationDecisionDecline {
		t.Errorf("installation decline %+v", r)
	}
	if _, ok := protocol.Decline(protocol.MethodGitHubTokenGetToken, nil); ok {
		t.Error("a token request was declined with a result; only an error can refuse it")
	}
}

// The older requests have declines too: a plan not approved, no model
// switch, the system prompt's sections as they were; a question for the
// user has none.
func TestLegacyDeclines(t *testing.T) {
	if r, ok := protocol.Decline(protocol.MethodExitPlanModeRequest, nil); !ok || r.(*protocol.ExitPlanModeResponse).Approved {
		t.Errorf("exit plan mode: %+v %v", r, ok)
	}
	if r, ok := protocol.Decline(protocol.MethodAutoModeSwitchRequest, nil); !ok || r.(*protocol.AutoModeSwitchRequestResponse).Response != "no" {
		t.Errorf("auto mode switch: %+v %v", r, ok)
	}
	r, ok := protocol.Decline(protocol.MethodSystemMessageTransform, json.RawMessage(`{"sessionId":"s","sections":{"identity":{"content":"x"}}}`))
	if !ok || r.(*protocol.SystemMessageTransformResult).Sections["identity"].Content != "x" {
		t.Errorf("transform: %+v %v", r, ok)
	}
	if _, ok := protocol.Decline(protocol.MethodUserInputRequest, nil); ok {
		t.Error("a question for the user was declined with an answer")
	}
}

// Handlers dispatches the older requests to their typed handlers and the
// schema's to ClientHandlers'.
func TestHandlersCoverOlderRequests(t *testing.T) {
	ctx := context.Background()
	var h protocol.Handlers
	if _, err := h.Handle(ctx, protocol.MethodUserInputRequest, nil); !errors.Is(err, protocol.ErrNoHandler) {
		t.Fatalf("unset: %v", err)
	}
	h.UserInputRequest = func(_ context.Context, p *protocol.UserInputRequestParams) (*protocol.UserInputResponse, error) {
		return &protocol.UserInputResponse{Answer: "re: " + p.Question}, nil
	}
	h.HooksInvoke = func(context.Context, *protocol.HookInvokeRequest) (*protocol.HookInvokeResponse, error) {
		return &protocol.HookInvokeResponse{Output: json.RawMessage(`{"ok":true}`)}, nil
	}
	res, err := h.Handle(ctx, protocol.MethodUserInputRequest, json.RawMessage(`{"sessionId":"s","question":"why?"}`))
	if err != nil || res.(*protocol.UserInputResponse).Answer != "re: why?" {
		t.Fatalf("user input: %+v %v", res, err)
	}
	res, err = h.Handle(ctx, protocol.MethodHooksInvoke, json.RawMessage(`{"sessionId":"s","hookType":"x"}`))
	if err != nil || string(res.(*protocol.HookInvokeResponse).Output) != `{"ok":true}` {
		t.Fatalf("hooks: %+v %v", res, err)
	}
	if _, err := h.Handle(ctx, protocol.MethodUserInputRequest, json.RawMessage(`[]`)); !errors.Is(err, protocol.ErrInvalidParams) {
		t.Fatalf("bad params: %v", err)
	}
}
