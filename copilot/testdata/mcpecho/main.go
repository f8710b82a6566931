// Command mcpecho is test support for the copilot package's conformance
// tests: the smallest MCP server over stdio (newline-delimited JSON-RPC),
// with one tool, shout, which answers its text in capitals. The real CLI
// starts it as a session's local MCP server.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
)

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var m message
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue // a notification (initialized, cancelled): nothing to answer
		}
		res, err := answer(m)
		reply := message{JSONRPC: "2.0", ID: m.ID, Result: res, Error: err}
		if err == nil && res == nil {
			reply.Result = struct{}{}
		}
		if out.Encode(reply) != nil {
			return
		}
	}
}

func answer(m message) (any, *rpcError) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		return map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "mcpecho", "version": "1.0.0"},
		}, nil
	case "ping":
		return nil, nil
	case "tools/list":
		return map[string]any{"tools": []any{map[string]any{
			"name":        "shout",
			"description": "Repeats the text in capitals.",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"text": map[string]any{"type": "string"}},
				"required":   []string{"text"},
			},
		}}}, nil
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Name != "shout" {
			return nil, &rpcError{Code: -32602, Message: "no tool " + p.Name}
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.ToUpper(p.Arguments.Text)}}}, nil
	}
	return nil, &rpcError{Code: -32601, Message: "method not found: " + m.Method}
}
