package main

import (
	"strings"
	"testing"
)

// TestGatePower: on DL-HARD's 50 queries, a gate on a 0.01 nDCG@10
// regression cannot be told from noise, and the output says so.
func TestGatePower(t *testing.T) {
	dir := dlHard(t)
	base, cand := dlHardRun(dir, "bm25_t5_zs"), dlHardRun(dir, "bm25")
	out, errs, code := ragstat(t, "", dlHardArgs(dir, "--fail-on", "nDCG@10 < -0.01", "--fail-on", "nDCG@10 < -0.5", base, cand)...)
	if code != exitGate {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		`gate "nDCG@10 < -0.01" on bm25: 50 queries resolve differences of 0.`,
		`a change of 0.0100 cannot be told from noise: the gate does not protect the release`,
		`gate "nDCG@10 < -0.5" on bm25: 50 queries resolve differences of 0.`,
		`it can catch that`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
