package manifest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/metric"
)

func base() *Manifest {
	return &Manifest{Kind: KindEval, Judgments: &File{Role: "judgments", Path: "q", SHA256: "aa"},
		Policy: eval.DefaultPolicy(), Metrics: []string{"nDCG@10"}, Queries: Queries([]string{"b", "a"})}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Manifest)
		want   []string
	}{
		{"same", func(*Manifest) {}, nil},
		{"other run files only", func(m *Manifest) { m.Inputs = []File{{Role: "run", Path: "x", SHA256: "cc"}} }, nil},
		{"judgments", func(m *Manifest) { m.Judgments = &File{SHA256: "bb"} }, []string{"judgments"}},
		{"no judgments", func(m *Manifest) { m.Judgments = nil }, []string{"judgments"}},
		{"policy and cutoff", func(m *Manifest) { m.Policy.Gain = metric.Linear; m.Metrics = []string{"nDCG@20"} },
			[]string{"policy.gain", "metrics"}},
		{"queries", func(m *Manifest) { m.Queries = Queries([]string{"a", "c"}) }, []string{"query_set"}},
		{"query order does not matter", func(m *Manifest) { m.Queries = Queries([]string{"a", "b"}) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cand := base()
			tt.change(cand)
			var got []string
			for _, m := range Diff(base(), cand) {
				got = append(got, m.Field)
				if err := CheckField(m.Field); err != nil {
					t.Error(err)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Diff fields = %v, want %v", got, tt.want)
			}
		})
	}
	if CheckField("policy.colour") == nil {
		t.Error("CheckField accepted an unknown field")
	}
}

func TestPolicyJSON(t *testing.T) {
	p := eval.DefaultPolicy()
	p.Unjudged, p.MinGrade = eval.UnjudgedNonrelevant, 2
	m := &Manifest{Kind: KindEval, Policy: p}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Manifest
	if err := json.Unmarshal(data, &back); err != nil || back.Policy != p {
		t.Errorf("round trip = %+v, %v; want %+v", back.Policy, err, p)
	}
	bad := strings.Replace(string(data), `"unit":"item"`, `"unit":"page"`, 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil {
		t.Error("an unknown unit was accepted")
	}
}

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
			paths, comps, err := ConfigDiff(json.RawMessage(tt.base), json.RawMessage(tt.cand))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(paths, tt.paths) || !slices.Equal(comps, tt.component) {
				t.Errorf("got %v %v, want %v %v", paths, comps, tt.paths, tt.component)
			}
		})
	}
	if _, _, err := ConfigDiff(json.RawMessage(`[1]`), nil); err == nil {
		t.Error("an array config was accepted")
	}
}
