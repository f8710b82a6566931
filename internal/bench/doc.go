// Package bench is the benchmark suite's shared code: test support, never
// on the production path. It makes the workloads (a pre-built feed of
// session events, the simulated server's streaming turns), the reference
// readers they are set against (the decode-only reader, the official Go
// SDK built from a checkout the user names), and the table that
// internal/cmd/bench prints. The same workloads run as go test -bench in
// this package, for benchstat. BENCHMARKS.md at the repository's root says
// how to run them and what they found.
package bench
