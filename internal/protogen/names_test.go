package main

import "testing"

func TestExported(t *testing.T) {
	for in, want := range map[string]string{
		"sessionId":               "SessionID",
		"mcpServers":              "MCPServers",
		"assistant.message_delta": "AssistantMessageDelta",
		"McpServerStatus":         "MCPServerStatus",
		"HTTPServer":              "HTTPServer",
		"textResultForLlm":        "TextResultForLLM",
		"toolCallIds":             "ToolCallIDs",
		"approve-once":            "ApproveOnce",
		"gpt-5":                   "Gpt5",
		"2fa":                     "X2fa",
		"":                        "X",
		"session.model.switchTo":  "SessionModelSwitchTo",
		"url":                     "URL",
	} {
		if got := exported(in); got != want {
			t.Errorf("exported(%q) = %q, want %q", in, got, want)
		}
	}
}
