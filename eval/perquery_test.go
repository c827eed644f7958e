package eval

import (
	"fmt"
	"os"
	"testing"

	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/metric"
)

// TestCollectJudgedMatchesCollectRows scores lists against judgments the
// caller supplies per query, keeps the rows in a RowFile and collects them
// with CollectJudged: the result is what an Evaluator holding the
// judgments gives through CollectRows, under every query-set, unjudged and
// unanswerable policy.
func TestCollectJudgedMatchesCollectRows(t *testing.T) {
	qrels := sharedtest.Qrels + "empty 0 noise 0\nlate 0 x 1\n"
	lists := map[string][]string{ // "limits" is missing; "other" is not judged
		"refund": {"noise", "policy", "unjudged", "overview"},
		"empty":  {"noise"},
		"late":   {"y", "x"},
		"other":  {"x"},
	}
	order := []string{"late", "refund", "empty", "other", "refund"} // arrival order; refund twice
	for _, p := range []Policy{
		{Queries: QueriesJudged, Unjudged: UnjudgedNonrelevant, Unanswerable: UnanswerableExclude},
		{Queries: QueriesJudged, Unjudged: UnjudgedBounds, Unanswerable: UnanswerableZero},
		{Queries: QueriesJudged, Unjudged: UnjudgedSkip, Unanswerable: UnanswerableExclude},
		{Queries: QueriesExact, Unjudged: UnjudgedNonrelevant, Unanswerable: UnanswerableExclude},
		{Queries: QueriesRun, Unjudged: UnjudgedNonrelevant, Unanswerable: UnanswerableError},
	} {
		base := DefaultPolicy()
		base.Queries, base.Unjudged, base.Unanswerable = p.Queries, p.Unjudged, p.Unanswerable
		t.Run(fmt.Sprintf("%s %s %s", p.Queries, p.Unjudged, p.Unanswerable), func(t *testing.T) {
			held := evaluator(t, qrels, base, "R@3", "nDCG", "RR", "gm_map")
			per, err := NewPerQuery("qrels.txt", base, held.Metrics())
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.CreateTemp(t.TempDir(), "rows")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			bounds := base.Unjudged == UnjudgedBounds
			rows, file := NewRows(len(held.Metrics()), bounds), NewRowFile(f, len(held.Metrics()), bounds)
			ids := held.Judgments().IDs()
			pos := map[string]int{}
			for i, q := range ids {
				pos[q] = i
			}
			var notJudged []string
			for _, q := range order {
				jq := held.Judgments().Query(q)
				if jq == nil {
					notJudged = append(notJudged, q)
					continue
				}
				grades := make([]int32, len(lists[q]))
				for i, it := range lists[q] {
					g, ok := jq.Grade(it)
					if !ok {
						g = metric.Unjudged
					}
					grades[i] = int32(g)
				}
				rows.Put(held.scoreRow(q, grades))
				if err := file.Put(pos[q], per.ScoreGrades(jq, grades, nil)); err != nil {
					t.Fatal(err)
				}
			}
			want, werr := held.CollectRows("r", "run", rows, notJudged, true)
			judged := func(fn func(Judged) error) error {
				for i, q := range ids {
					row, ok, err := file.Get(i, q)
					if err != nil {
						return err
					}
					if err := fn(Judged{Query: q, Grades: held.Judgments().Query(q).Grades(nil), Row: row, Scored: ok}); err != nil {
						return err
					}
				}
				return nil
			}
			got, gerr := per.CollectJudged("r", "run", judged, notJudged, true)
			if fmt.Sprintf("%+v %v", got, gerr) != fmt.Sprintf("%+v %v", want, werr) {
				t.Errorf("per query: %+v %v\nheld: %+v %v", got, gerr, want, werr)
			}
		})
	}
}

func TestNewPerQueryRefusesTheDocUnit(t *testing.T) {
	p := DefaultPolicy()
	p.Unit = UnitDoc
	ms, _ := metric.ParseAll([]string{"R"})
	if _, err := NewPerQuery("qrels.txt", p, ms); err == nil {
		t.Fatal("the doc unit was accepted")
	}
}
