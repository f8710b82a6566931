package copilot

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"testing"
)

// exportedAPI is what package copilot exports, read from its source: the
// top-level names, and for each type its fields and methods; a type that
// is an alias of another package's type lists none (its members are not
// this package's to check).
type exportedAPI struct {
	names   map[string]bool
	members map[string]map[string]bool
	aliases map[string]bool
}

func readExportedAPI(t *testing.T) exportedAPI {
	t.Helper()
	fset := token.NewFileSet()
	// The package's files as the build sees them on this platform: the
	// list the go command gives, not a parse of the folder that would
	// ignore build tags.
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	api := exportedAPI{names: map[string]bool{}, members: map[string]map[string]bool{}, aliases: map[string]bool{}}
	member := func(typ, name string) {
		if api.members[typ] == nil {
			api.members[typ] = map[string]bool{}
		}
		api.members[typ][name] = true
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					api.names[d.Name.Name] = true
					continue
				}
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if id, ok := recv.(*ast.Ident); ok {
					member(id.Name, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						api.names[spec.Name.Name] = true
						if spec.Assign.IsValid() {
							api.aliases[spec.Name.Name] = true
						}
						if st, ok := spec.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								for _, n := range fld.Names {
									member(spec.Name.Name, n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							api.names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return api
}

// Every name of package copilot that MIGRATING.md writes as copilot.X or
// copilot.X.Y (a field or method of X) exists.
func TestMigratingNamesExist(t *testing.T) {
	doc, err := os.ReadFile("../MIGRATING.md")
	if err != nil {
		t.Fatal(err)
	}
	api := readExportedAPI(t)
	refs := regexp.MustCompile(`\bcopilot\.([A-Z]\w*)(?:\.([A-Z]\w*))?`).FindAllStringSubmatch(string(doc), -1)
	if len(refs) < 50 {
		t.Fatalf("MIGRATING.md names %d things of package copilot; the pattern must have missed them", len(refs))
	}
	for _, r := range refs {
		name, member := r[1], r[2]
		switch {
		case !api.names[name]:
			t.Errorf("MIGRATING.md names copilot.%s, which package copilot does not export", name)
		case member != "" && !api.aliases[name] && !api.members[name][member]:
			t.Errorf("MIGRATING.md names %s, but %s has no field or method %s", r[0], name, member)
		}
	}
}

// The check itself finds a name that does not exist.
func TestMigratingCheckFindsAMissingName(t *testing.T) {
	api := readExportedAPI(t)
	if !api.names["Start"] || !api.members["Session"]["Destroy"] || !api.members["SessionConfig"]["Permissions"] || !api.aliases["Event"] {
		t.Fatal("the exported API was not read")
	}
	if api.names["CreateSession"] || api.members["Session"]["Disconnect"] {
		t.Fatal("names of the official SDK read as ours")
	}
}
