package eval

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
)

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Policy)
		field  string // "" when valid
	}{
		{"default", func(*Policy) {}, ""},
		{"threshold off the scale", func(p *Policy) { p.MinGrade = 5 }, "min_grade"},
		{"threshold zero", func(p *Policy) { p.MinGrade = 0 }, "min_grade"},
		{"threshold on a negative scale", func(p *Policy) { p.Scale, p.MinGrade = judgments.Scale{Min: -2, Max: 0}, 0 }, ""},
		{"empty scale", func(p *Policy) { p.Scale = judgments.Scale{Min: 3, Max: 0} }, "grades"},
		{"unknown gain", func(p *Policy) { p.Gain = 7 }, "gain"},
		{"unjudged unset", func(p *Policy) { p.Unjudged = "" }, "unjudged"},
		{"unknown unanswerable", func(p *Policy) { p.Unanswerable = "ignore" }, "unanswerable"},
		{"queries unset", func(p *Policy) { p.Queries = "" }, "queries"},
		{"unknown unit", func(p *Policy) { p.Unit = "page" }, "unit"},
		{"order unset", func(p *Policy) { p.Order = "" }, "order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DefaultPolicy()
			tt.change(&p)
			err := p.Validate()
			var pe *diag.OptionError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.field != "" && (!errors.As(err, &pe) || pe.Option != tt.field):
				t.Errorf("got %v, want an error on %s", err, tt.field)
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	set, err := judgments.Read(input.FromBytes("qrels.txt", []byte(sharedtest.Qrels)), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := metric.ParseAll([]string{"R@10"})
	ev, err := New(set, Policy{}, ms, nil)
	if err != nil || ev.Policy() != DefaultPolicy() {
		t.Errorf("the zero Policy: %v, %+v; want the default", err, ev)
	}
	if _, err := New(set, Policy{MinGrade: 1}, ms, nil); err == nil {
		t.Error("a policy naming one choice only was accepted")
	}
	doc := DefaultPolicy()
	doc.Unit = UnitDoc
	if _, err := New(set, doc, ms, nil); err == nil || !strings.Contains(err.Error(), "needs a document map") {
		t.Errorf("the doc unit without a map: %v", err)
	}
	if _, err := New(set, DefaultPolicy(), ms, func(s string) string { return s }); err == nil {
		t.Error("a document map under the item unit was accepted")
	}
}

func TestPolicyText(t *testing.T) {
	p := DefaultPolicy()
	p.Unjudged, p.Gain, p.Order = UnjudgedBounds, metric.Linear, runs.ByRank
	s := p.String()
	if want := "min-grade 1, grades 0..3, gain linear, unjudged bounds, unanswerable error, queries exact, unit item, order rank"; s != want {
		t.Errorf("String = %q, want %q", s, want)
	}
	if back, err := ParsePolicy(s); err != nil || back != p {
		t.Errorf("ParsePolicy = %+v, %v; want %+v", back, err, p)
	}
	for _, bad := range []string{
		"min-grade 1",
		strings.Replace(s, "unit item", "unit page", 1),
		strings.Replace(s, "min-grade 1", "min-grade 9", 1),
		s + ", colour blue",
		s + ", gain exp",
	} {
		if _, err := ParsePolicy(bad); err == nil {
			t.Errorf("ParsePolicy(%q) accepted it", bad)
		}
	}
}

func TestPolicyJSON(t *testing.T) {
	p := DefaultPolicy()
	p.MinGrade, p.Unanswerable = 2, UnanswerableExclude
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"min_grade":2,"grades":"0..3","gain":"exp","unjudged":"error","unanswerable":"exclude","queries":"exact","unit":"item","order":"score"}`
	if string(data) != want {
		t.Errorf("JSON = %s, want %s", data, want)
	}
	var back Policy
	if err := json.Unmarshal(data, &back); err != nil || back != p {
		t.Errorf("read back %+v, %v", back, err)
	}
	for _, bad := range [][2]string{{`"gain":"exp"`, `"gain":"cubic"`}, {`"grades":"0..3"`, `"grades":"3..0"`},
		{`"order":"score"`, `"order":"given"`}, {`"unjudged":"error"`, `"unjudged":"maybe"`}} {
		doc := strings.Replace(want, bad[0], bad[1], 1)
		if err := json.Unmarshal([]byte(doc), &back); doc == want || err == nil {
			t.Errorf("%s accepted", doc)
		}
	}
}

// TestOrderRanks checks that the policy's Order, printed beside the
// scores, is the order the lists are ranked in.
func TestOrderRanks(t *testing.T) {
	run := "refund Q0 noise 1 1.0 t\nrefund Q0 policy 2 2.0 t\nlimits Q0 limit 1 1.0 t\n"
	for _, tt := range []struct {
		order runs.Order
		want  float64 // RR@10 of refund
	}{{runs.ByScore, 1}, {runs.ByRank, 0.5}} {
		p := DefaultPolicy()
		p.Order, p.Unjudged = tt.order, UnjudgedNonrelevant
		res, err := runText(t, evaluator(t, sharedtest.Qrels, p, "RR@10"), run)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Rows[0].Values[0]; res.Rows[0].Query != "refund" || !near(got, tt.want) {
			t.Errorf("order %s: refund RR@10 = %v, want %v", tt.order, got, tt.want)
		}
	}
	e := evaluator(t, sharedtest.Qrels, DefaultPolicy(), "RR@10")
	if _, err := e.Run("r", input.FromBytes("run.txt", []byte(run)), runs.Options{Order: runs.ByRank}); err == nil {
		t.Error("a reader order other than the policy's was accepted")
	}
}

// TestAsEvaluated checks that the list views show is the list scored.
func TestAsEvaluated(t *testing.T) {
	qrels := "q 0 a 1\nq 0 b 0\n"
	items := []string{"a#1", "x#1", "a#2", "b#1"}
	tests := []struct {
		unit     Unit
		unjudged Unjudged
		items    []string
		want     []string
	}{
		{UnitItem, UnjudgedNonrelevant, []string{"a", "x", "b"}, []string{"a", "x", "b"}},
		{UnitItem, UnjudgedSkip, []string{"a", "x", "b"}, []string{"a", "b"}},
		{UnitDoc, UnjudgedNonrelevant, items, []string{"a", "x", "b"}},
		{UnitDoc, UnjudgedSkip, items, []string{"a", "b"}},
	}
	for _, tt := range tests {
		p := DefaultPolicy()
		p.Unit, p.Unjudged = tt.unit, tt.unjudged
		e := evaluator(t, qrels, p, "RR@10")
		if got := e.AsEvaluated("q", tt.items); !slices.Equal(got, tt.want) {
			t.Errorf("%s, %s: %v, want %v", tt.unit, tt.unjudged, got, tt.want)
		}
	}
}
