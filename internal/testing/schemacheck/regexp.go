package schemacheck

import (
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ecmaRegexp compiles the schemas' patterns, which are ECMA-262 regular
// expressions, with Go's regexp. The schemas use one construct Go lacks,
// `\uXXXX` (e.g. `^[^\s\u0000-\u001F]+$`); it is rewritten to Go's
// `\x{XXXX}`. Everything else they use means the same in both.
func ecmaRegexp(pattern string) (jsonschema.Regexp, error) {
	return regexp.Compile(translateECMA(pattern))
}

func translateECMA(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '\\' || i+1 >= len(p) {
			b.WriteByte(p[i])
			continue
		}
		if p[i+1] == 'u' && i+6 <= len(p) && isHex(p[i+2:i+6]) {
			b.WriteString(`\x{` + p[i+2:i+6] + `}`)
			i += 5
			continue
		}
		// Any other escape is copied whole, so `\\u0041` stays a
		// backslash followed by "u0041".
		b.WriteString(p[i : i+2])
		i++
	}
	return b.String()
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}
