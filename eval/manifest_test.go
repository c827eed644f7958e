package eval

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/metric"
)

func base() *Manifest {
	return &Manifest{Kind: KindEval, Judgments: &FileRecord{Role: "judgments", Path: "q", SHA256: "aa"},
		Policy: DefaultPolicy(), Metrics: []string{"nDCG@10"}, Queries: DigestQueries([]string{"b", "a"})}
}

func TestFrozenDiff(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Manifest)
		want   []string
	}{
		{"same", func(*Manifest) {}, nil},
		{"other run files only", func(m *Manifest) { m.Inputs = []FileRecord{{Role: "run", Path: "x", SHA256: "cc"}} }, nil},
		{"judgments", func(m *Manifest) { m.Judgments = &FileRecord{SHA256: "bb"} }, []string{"judgments"}},
		{"no judgments", func(m *Manifest) { m.Judgments = nil }, []string{"judgments"}},
		{"policy and cutoff", func(m *Manifest) { m.Policy.Gain = metric.Linear; m.Metrics = []string{"nDCG@20"} },
			[]string{"policy.gain", "metrics"}},
		{"queries", func(m *Manifest) { m.Queries = DigestQueries([]string{"a", "c"}) }, []string{"query_set"}},
		{"query order does not matter", func(m *Manifest) { m.Queries = DigestQueries([]string{"a", "b"}) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cand := base()
			tt.change(cand)
			var got []string
			for _, m := range FrozenDiff(base(), cand) {
				got = append(got, m.Field)
				if err := CheckFrozen(m.Field); err != nil {
					t.Error(err)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("FrozenDiff fields = %v, want %v", got, tt.want)
			}
		})
	}
	if CheckFrozen("policy.colour") == nil {
		t.Error("CheckFrozen accepted an unknown field")
	}
}

func TestManifestPolicyJSON(t *testing.T) {
	p := DefaultPolicy()
	p.Unjudged, p.MinGrade = UnjudgedNonrelevant, 2
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
