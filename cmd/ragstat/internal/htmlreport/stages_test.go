package htmlreport

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/analysis"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/tokenize"
)

// stagesPage renders rep as saved JSON, reads it back as `ragstat report`
// does, checks that it survives the round trip, and returns what was read
// and the page made from it.
func stagesPage(t *testing.T, rep *report.Stages) (*report.SavedStages, string) {
	t.Helper()
	var js bytes.Buffer
	if err := report.RenderStages(&js, "json", rep); err != nil {
		t.Fatal(err)
	}
	saved, err := report.ReadStages(input.FromBytes("stages.json", js.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := report.RenderStages(&again, "json", saved.Stages); err != nil {
		t.Fatal(err)
	}
	if again.String() != js.String() {
		t.Fatal("stages JSON does not survive a round trip")
	}
	var out bytes.Buffer
	if err := Stages(&out, saved); err != nil {
		t.Fatal(err)
	}
	return saved, out.String()
}

// TestStages renders the demo's traced pipelines after a JSON round trip,
// as `ragstat report` does.
func TestStages(t *testing.T) {
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := demo.Pipeline(tok)
	if err != nil {
		t.Fatal(err)
	}
	saved, page := stagesPage(t, rep)
	checkPage(t, page,
		"Permission violation: 1 out-of-scope item(s) reached the generator",
		`aria-label="where relevant evidence stopped, v1"`,
		"cut between candidates and reranked",
		"truncated (span lost)",
		"fact clearance: Clearance items are final sale</td>",
		"OVER BUDGET</span></p><ul><li>api-limits: 275 tokens, budget 120, 155 over</li>",
	)
	// Every kind of invalid evidence the systems have is a row of the
	// validity table.
	rows := strings.Count(page, `<tr class="bad"><td>out of scope</td>`) + strings.Count(page, `<tr class=""><td>out of scope</td>`) +
		strings.Count(page, "<tr><td>stale</td>") + strings.Count(page, "<tr><td>revision conflict</td>")
	want, kinds := 0, [3]int{}
	for _, s := range saved.Result.Systems {
		want += len(s.Validity.OutOfScope) + len(s.Validity.Stale) + len(s.Validity.Conflicts)
		kinds[0], kinds[1], kinds[2] = kinds[0]+len(s.Validity.OutOfScope), kinds[1]+len(s.Validity.Stale), kinds[2]+len(s.Validity.Conflicts)
	}
	if rows != want || slices.Contains(kinds[:], 0) {
		t.Errorf("%d validity rows, want %d (out of scope, stale, conflicts: %v)", rows, want, kinds)
	}
}

// TestStagesAnalyses renders every analysis of a system from the values
// the result holds, after a JSON round trip: the page computes nothing.
func TestStagesAnalyses(t *testing.T) {
	rep, err := demo.Pipeline(nil)
	if err != nil {
		t.Fatal(err)
	}
	ece := 0.125
	rep.Result.Systems[0].Analyses = &stages.Analyses{
		Calibration: []stages.StageCalibration{{Stage: "reranked", Queries: 3, Judged: 6, ECE: &ece,
			Bins: []stages.CalibrationBin{{Low: 0, High: 1, Count: 6, MeanScore: 0.5, Relevant: 0.625}}}},
		Redundancy: stages.RedundancyReport{Shingle: 3, Threshold: 0.8, Unit: "words", Stages: []stages.StageRedundancy{
			{Stage: "candidates", Lists: 4, Items: 13, NoText: 1, ExactPairs: 2, NearPairs: 1, WithRepeats: 2, Tokens: 200, RepeatTokens: 50,
				RepeatShare: 0.25, RelevantItems: 6, UniqueRelevant: 5, Docs: 2, DocShare: []analysis.Share{{Doc: "refund-policy", Share: 0.75}, {Doc: "faq", Share: 0.25}}},
			{Stage: "context", Lists: 4, Items: 7, Tokens: 100, DocShare: []analysis.Share{}}}},
		Position: stages.EvidencePosition{Rule: "a stated rule", Buckets: []stages.PositionBucket{
			{Bucket: "begin", Passages: 3, MeanRank: 1, Queries: 3, Correct: 2.0 / 3}, {Bucket: "middle"}, {Bucket: "end"}},
			NoEvidence: stages.PositionBucket{Bucket: "none", Queries: 1}},
		Stale: []analysis.Reach{{Item: "policy-2025#2", Contexts: 2, Answers: 1}},
		Cost: &stages.CostReport{PriceIn: 2.5, PriceOut: 10, Queries: 4, PerQuery: 0.000226, Total: 0.000902,
			Parts: []stages.CostPart{{Part: "context", MeanTokens: 38.25, PerQuery: 0.000096}}},
	}
	_, page := stagesPage(t, rep)
	checkPage(t, page,
		`aria-label="reliability diagram, stage reranked"`,
		"<tr><td>candidates</td><td>4</td><td>13</td><td>1</td><td>2</td><td>1</td><td>2</td><td>50</td><td>200</td><td>0.2500</td><td>5</td><td>6</td></tr>",
		"Jaccard of 3-word shingles at or above 0.8. Sizes in words.",
		"refund-policy 0.7500; faq 0.2500;",
		`aria-label="share of each stage spent on repeats, v1"`,
		"Correct: a stated rule.",
		`aria-label="share of answers correct by where the evidence sat, v1"`,
		"<tr><td>begin</td><td>3</td><td>1.00</td><td>3</td><td>0.6667</td></tr>",
		"<tr><td>policy-2025#2</td><td>2</td><td>1</td></tr>",
		"0.000226 USD per query, 0.000902 USD over 4 queries, at 2.5 USD per 1M input and 10 USD per 1M output tokens.",
		"<tr><td>context</td><td>38.2</td><td>0.000096</td></tr>",
	)
	// A system without analyses shows none.
	if strings.Count(page, "<h3>Redundancy per stage</h3>") != 1 {
		t.Error("redundancy shown for a system without analyses")
	}
}
