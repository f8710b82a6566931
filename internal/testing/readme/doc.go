// Package readme holds no code: its test checks that the README's package
// table names every package of the module, and none that does not exist,
// so a package added or removed without its row fails `go test ./...`;
// and that the README's first command is one that works from a clone.
//
// The check is a test rather than a generator because the table's second
// column is prose written for people; only the first column, the package
// paths in backquotes (several may share a row), is compared with
// `go list ./...`.
package readme
