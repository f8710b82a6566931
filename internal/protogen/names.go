package main

import (
	"strings"
	"unicode"
)

// initialisms are written in capitals in Go names (Go's own list, plus the
// protocol's: MCP, LLM, SDK, …), so "sessionId" becomes SessionID.
var initialisms = map[string]bool{
	"ACL": true, "AI": true, "API": true, "ASCII": true, "CA": true, "CLI": true, "CPU": true, "CSS": true,
	"DNS": true, "EOF": true, "FS": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IDE": true,
	"IP": true, "JSON": true, "LLM": true, "LSP": true, "MCP": true, "ML": true, "OS": true,
	"PR": true, "RPC": true, "SDK": true, "SQL": true, "SSH": true, "TCP": true, "TLS": true, "TTL": true,
	"UI": true, "UID": true, "URI": true, "URL": true, "UTF8": true, "UUID": true, "VM": true, "XML": true,
}

// words splits an identifier of any style (camelCase, snake_case,
// dotted.names, kebab-case, PascalCase with initialisms) into its words.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			// A capital starts a word, unless it continues a run of
			// capitals ("HTTPServer": "HTTP", "Server").
			prevUpper := i > 0 && unicode.IsUpper(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if !prevUpper || nextLower {
				flush()
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// exported is the Go name for a schema name: its words capitalised,
// initialisms in capitals ("sessionId" → SessionID, "mcpServers" →
// MCPServers, "assistant.message_delta" → AssistantMessageDelta).
func exported(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		up := strings.ToUpper(w)
		switch {
		case initialisms[up]:
			b.WriteString(up)
		case up == "IDS":
			b.WriteString("IDs")
		default:
			rs := []rune(w)
			rs[0] = unicode.ToUpper(rs[0])
			b.WriteString(string(rs))
		}
	}
	name := b.String()
	if name == "" {
		return "X"
	}
	if unicode.IsDigit([]rune(name)[0]) {
		name = "X" + name
	}
	return name
}
