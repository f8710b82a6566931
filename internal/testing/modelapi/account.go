package modelapi

import "net/http"

// serveUser answers GET /copilot_internal/user: the account the CLI runs
// as, whose API and telemetry endpoints are this server, so that nothing is
// sent elsewhere, and whose MCP policy is Config.MCPEnabled.
func (s *Server) serveUser(w http.ResponseWriter) {
	user := map[string]any{
		"login":        "quorum-test",
		"copilot_plan": "individual_pro",
		"endpoints":    map[string]string{"api": s.url, "telemetry": s.url + "/telemetry"},
	}
	if s.mcpEnabled {
		user["is_mcp_enabled"] = true
	}
	writeJSON(w, http.StatusOK, user)
}
