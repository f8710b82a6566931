//go:build race

package bench

// raceEnabled: the tests, and the children they run, were built with -race.
const raceEnabled = true
