// Package longtest tells a test whether the long suite is running: the
// exhaustive oracle comparisons and the full-size load tests, built with
//
//	go test -tags long ./... ./e2e/...
//
// The default run keeps a representative sample of each; a long test calls
// Skip, or sizes its load with Pick.
package longtest

import "testing"

// Skip skips t unless the long suite is running.
func Skip(t testing.TB) {
	t.Helper()
	if !Enabled {
		t.Skipf("skipped: %s is part of the long suite: run with -tags long", t.Name())
	}
}

// Pick returns long in the long suite and short otherwise.
func Pick[T any](short, long T) T {
	if Enabled {
		return long
	}
	return short
}
