package copilottest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"testing"

	"github.com/quorum-go/quorum/internal/sim"
)

// The package's constants are written out, so that go doc shows their
// values; they must stay the engine's.
func TestConstantsAreTheEngines(t *testing.T) {
	for _, c := range [][2]string{
		{BuiltinView, sim.ToolView}, {BuiltinCreate, sim.ToolCreate}, {BuiltinEdit, sim.ToolEdit},
		{BuiltinBash, sim.ToolBash}, {BuiltinWebFetch, sim.ToolWebFetch},
		{PermittedToolOutput, sim.PermittedToolOutput},
	} {
		if c[0] != c[1] {
			t.Errorf("%q is %q in the engine", c[0], c[1])
		}
	}
}

// go doc shows an alias's comment, not the fields behind it, so each
// alias's comment lists them: it must list every field the engine's type
// has, or a user never learns of one.
func TestAliasCommentsListEveryField(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "script.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	comments := map[string]string{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE && len(g.Specs) == 1 {
			if s := g.Specs[0].(*ast.TypeSpec); s.Assign.IsValid() {
				comments[s.Name.Name] = g.Doc.Text()
			}
		}
	}
	for name, v := range map[string]any{
		"Turn": Turn{}, "Exchange": Exchange{}, "ToolCallResult": ToolCallResult{}, "Response": Response{},
		"ToolCall": ToolCall{}, "UserQuestion": UserQuestion{}, "Elicitation": Elicitation{},
		"ElicitationAnswer": ElicitationAnswer{}, "Failure": Failure{}, "SubAgentText": SubAgentText{}, "Usage": Usage{},
	} {
		doc, ok := comments[name]
		if !ok {
			t.Errorf("%s is not an alias in script.go", name)
			continue
		}
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			if fl := typ.Field(i); fl.IsExported() && !regexp.MustCompile(`(?m)^\t`+fl.Name+`\b`).MatchString(doc) {
				t.Errorf("%s's comment does not list its field %s", name, fl.Name)
			}
		}
	}
	if len(comments) != 11 {
		t.Errorf("script.go has %d aliases, the test knows 11: list the new one's fields and add it here", len(comments))
	}
}
