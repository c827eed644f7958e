package demo

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/tokenize"
)

func TestArticleMeans(t *testing.T) {
	rep, err := Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]string{"A": {"0.8333", "0.8333", "0.7296"}, "B": {"1.0000", "0.8333", "0.8541"}}
	for _, res := range rep.Results {
		for i, v := range res.Mean {
			if got := strconv.FormatFloat(v, 'f', 4, 64); got != want[res.Name][i] {
				t.Errorf("%s %s = %s, want %s", res.Name, res.Metrics[i].Name(), got, want[res.Name][i])
			}
		}
	}
}

// TestPipelineStory checks the second part tells the source document's
// story in numbers: the first relevant passage found (RR = 1) while the
// exception is lost (coverage 1/2), by the reranker in v1 and by the packer
// in v2 (a truncated passage), with an out-of-scope passage and a stale
// revision caught.
func TestPipelineStory(t *testing.T) {
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Pipeline(tok)
	if err != nil {
		t.Fatal(err)
	}
	story := strings.Join(PipelineStory(rep.Result), "\n")
	for _, w := range []string{
		`v1, "refund-clearance": RR in the context is 1.0000, yet required-fact coverage is 1/2: fact clearance cut between candidates and reranked`,
		`v2, "refund-clearance": RR in the context is 1.0000, yet required-fact coverage is 1/2: fact clearance truncated (span lost)`,
		`v1, "api-limits": out-of-scope limits-b#1 (scope tenant-b) reached the generator`,
		"v1: a stale revision was caught",
		"v2: abstained on 1 of 1 unanswerable queries",
	} {
		if !strings.Contains(story, w) {
			t.Errorf("story lacks %q:\n%s", w, story)
		}
	}
	v1 := rep.Result.Systems[0]
	if v1.Name != "v1" || len(v1.Context.OverBudget) != 1 || v1.Context.OverBudget[0] != "api-limits" {
		t.Errorf("v1 over budget: %v", v1.Context.OverBudget)
	}
	if v2 := rep.Result.Systems[1]; len(v2.Context.TruncatedAway) != 1 || v2.Context.TruncatedAway[0].What != "exceptions#4" {
		t.Errorf("v2 truncated away: %+v", v2.Context.TruncatedAway)
	}
}
