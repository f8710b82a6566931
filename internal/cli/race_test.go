//go:build race

package cli

// raceEnabled: the tests were built with -race, and so is the binary they
// run (its packages are then already compiled, and checked too).
const raceEnabled = true
