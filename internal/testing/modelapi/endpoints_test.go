package modelapi

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestEndpoints(t *testing.T) {
	s, c := startServer(t, map[string]Responder{"zeta": Echo, "alpha": Echo})
	s.SetModel("beta", Echo)
	s.SetModel("alpha", Fixed(Text("replaced"))) // replacing keeps its place

	var models struct {
		Data []struct {
			ID           string `json:"id"`
			Name         string `json:"name"`
			Capabilities struct {
				Supports map[string]bool `json:"supports"`
				Limits   struct {
					MaxContextWindowTokens int `json:"max_context_window_tokens"`
				} `json:"limits"`
			} `json:"capabilities"`
		} `json:"data"`
	}
	if code := getJSON(t, c, s.URL()+"/models", &models); code != http.StatusOK {
		t.Fatalf("GET /models: %d", code)
	}
	var ids []string
	for _, m := range models.Data {
		ids = append(ids, m.ID)
		if m.Name != m.ID || !m.Capabilities.Supports["vision"] || m.Capabilities.Limits.MaxContextWindowTokens != 128000 {
			t.Errorf("model entry %+v lacks the fields the CLI needs", m)
		}
	}
	if want := []string{"alpha", "zeta", "beta"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("model ids = %v, want %v", ids, want)
	}

	var user struct {
		Login     string            `json:"login"`
		Plan      string            `json:"copilot_plan"`
		Endpoints map[string]string `json:"endpoints"`
	}
	if code := getJSON(t, c, s.URL()+"/copilot_internal/user", &user); code != http.StatusOK {
		t.Fatalf("GET user: %d", code)
	}
	if user.Endpoints["api"] != s.URL() || user.Endpoints["telemetry"] != s.URL()+"/telemetry" || user.Plan == "" || user.Login == "" {
		t.Errorf("user = %+v, want endpoints at %s", user, s.URL())
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %q is not on loopback", s.URL())
	}

	for _, p := range []string{"/copilot_internal/team_customizations", "/mcp/readonly", "/nope"} {
		if code := getJSON(t, c, s.URL()+p, nil); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
	resp, err := c.Post(s.URL()+"/mcp/readonly", "application/json", strings.NewReader(`{"jsonrpc":"2.0"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /mcp/readonly = %d, want 404", resp.StatusCode)
	}
	resp, err = c.Post(s.URL()+"/telemetry/telemetry", "application/x-json-stream", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("POST telemetry = %d, want 204", resp.StatusCode)
	}

	calls := s.Calls()
	if len(calls) != 7 || calls[0] != "GET /models" || calls[5] != "POST /mcp/readonly" {
		t.Errorf("Calls() = %q", calls)
	}
}

// The account's MCP policy: unset by default (the CLI then filters session
// MCP servers out), allowed with Config.MCPEnabled (the CLI loads them).
func TestUserAccountMCPPolicy(t *testing.T) {
	for _, enabled := range []bool{false, true} {
		s, err := Start(Config{MCPEnabled: enabled})
		if err != nil {
			t.Fatal(err)
		}
		var user map[string]any
		if code := getJSON(t, http.DefaultClient, s.URL()+"/copilot_internal/user", &user); code != http.StatusOK {
			t.Fatalf("GET user: %d", code)
		}
		s.Close()
		if got, _ := user["is_mcp_enabled"].(bool); got != enabled {
			t.Errorf("MCPEnabled %v: is_mcp_enabled = %v in %v", enabled, user["is_mcp_enabled"], user)
		}
	}
}
