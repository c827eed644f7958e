package stages

import "testing"

// TestWalk: where a piece of evidence stopped, and the last stage that
// returned it, whether or not it was acceptable evidence there.
func TestWalk(t *testing.T) {
	names := []string{"candidates", "reranked", "context"}
	tests := []struct {
		name            string
		at              []state
		status, reached string
	}{
		{"delivered", []state{evidence, evidence, evidence}, StatusDelivered, "context"},
		{"not retrieved", []state{absent, absent, absent}, StatusNotRetrieved, ""},
		{"cut", []state{evidence, absent, absent}, cut("candidates", "reranked"), "candidates"},
		{"dropped", []state{evidence, evidence, absent}, StatusDropped, "reranked"},
		{"truncated", []state{evidence, evidence, spanLost}, StatusTruncated, "reranked"},
		{"out of scope, reached the context", []state{outOfScope, outOfScope, outOfScope}, StatusOutOfScope, "context"},
		{"out of scope, cut at reranking", []state{outOfScope, absent, absent}, StatusOutOfScope, "candidates"},
		{"stale, reached the reranker", []state{stale, stale, absent}, StatusStale, "reranked"},
		{"stale, not retrieved", []state{absent, absent, absent}, StatusNotRetrieved, ""},
	}
	for _, tt := range tests {
		status, reached := walk(names, func(i int) state { return tt.at[i] })
		if status != tt.status || reached != tt.reached {
			t.Errorf("%s: %q, last reached %q; want %q, %q", tt.name, status, reached, tt.status, tt.reached)
		}
	}
}
