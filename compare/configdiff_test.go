package compare

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestConfigDiff(t *testing.T) {
	tests := []struct {
		name             string
		base, cand       string
		paths, component []string
	}{
		{"equal", `{"retriever":{"k":50}}`, `{"retriever":{"k":50}}`, nil, nil},
		{"one component", `{"retriever":{"k":50,"model":"bm25"}}`, `{"retriever":{"k":100,"model":"bm25"}}`,
			[]string{"retriever.k"}, []string{"retriever"}},
		{"two components", `{"retriever":{"k":50},"reranker":"none"}`, `{"retriever":{"k":100},"reranker":"t5"}`,
			[]string{"reranker", "retriever.k"}, []string{"reranker", "retriever"}},
		{"added and removed", `{"a":1}`, `{"b":[1,2]}`, []string{"a", "b"}, []string{"a", "b"}},
		{"unknown side", ``, `{"a":1}`, []string{"a"}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths, comps, err := configDiff(json.RawMessage(tt.base), json.RawMessage(tt.cand))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(paths, tt.paths) || !slices.Equal(comps, tt.component) {
				t.Errorf("got %v %v, want %v %v", paths, comps, tt.paths, tt.component)
			}
		})
	}
	if _, _, err := configDiff(json.RawMessage(`[1]`), nil); err == nil {
		t.Error("an array config was accepted")
	}
}
