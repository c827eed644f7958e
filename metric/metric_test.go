package metric

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// score computes recall, RR and nDCG at k the way the source document's
// score_query does: exp gain, threshold 1.
func score(t *testing.T, qrels map[string]int32, ranked []string, k int) (recall, rr, ndcg float64) {
	t.Helper()
	var grades, ideal []int32
	for _, d := range ranked {
		g, ok := qrels[d]
		if !ok {
			t.Fatalf("unjudged %q", d)
		}
		grades = append(grades, g)
	}
	for _, g := range qrels {
		ideal = append(ideal, g)
	}
	l := NewList(grades, ideal)
	p := Policy{MinGrade: 1, Gain: Exp}
	get := func(name string) float64 {
		ms, err := Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		return ms[0].Compute(l, p)
	}
	return get("R@" + strconv.Itoa(k)), get("RR@" + strconv.Itoa(k)), get("nDCG@" + strconv.Itoa(k))
}

// The source document's four tests.
func TestRelevantResultAtRankTwo(t *testing.T) {
	r, rr, n := score(t, map[string]int32{"a": 3, "x": 0}, []string{"x", "a"}, 2)
	if r != 1 || rr != 0.5 || math.Abs(n-1/math.Log2(3)) > 1e-12 {
		t.Fatalf("got recall %v rr %v ndcg %v", r, rr, n)
	}
}

func TestMissingEvidenceStaysInDenominator(t *testing.T) {
	r, _, n := score(t, map[string]int32{"a": 3, "b": 2}, []string{"a"}, 3)
	if r != 0.5 || n >= 1 {
		t.Fatalf("got recall %v ndcg %v", r, n)
	}
}

func TestCutoffCanRemoveTheOnlyHit(t *testing.T) {
	r, rr, n := score(t, map[string]int32{"a": 3, "x": 0}, []string{"x", "a"}, 1)
	if r != 0 || rr != 0 || n != 0 {
		t.Fatalf("got recall %v rr %v ndcg %v", r, rr, n)
	}
}

// TestArticleTable reproduces every number of the source document's table.
func TestArticleTable(t *testing.T) {
	qrels := map[string]map[string]int32{
		"refund":  {"policy": 3, "exception": 2, "overview": 1, "noise": 0},
		"limits":  {"limit": 3, "scope": 2, "noise": 0},
		"restore": {"restore": 3, "snapshot": 2, "noise": 0},
	}
	tests := []struct {
		query     string
		ranked    []string
		r, rr, nd float64
	}{
		{"refund", []string{"overview", "policy", "exception"}, 1, 1, 0.7364},
		{"limits", []string{"limit", "noise"}, 0.5, 1, 0.7872},
		{"restore", []string{"noise", "restore", "snapshot"}, 1, 0.5, 0.6653},
		{"refund", []string{"policy", "exception", "overview"}, 1, 1, 1},
		{"limits", []string{"noise", "scope", "limit"}, 1, 0.5, 0.6064},
		{"restore", []string{"restore", "noise", "snapshot"}, 1, 1, 0.9558},
	}
	for _, tc := range tests {
		r, rr, n := score(t, qrels[tc.query], tc.ranked, 3)
		if r != tc.r || rr != tc.rr || math.Abs(n-tc.nd) > 5e-5 {
			t.Errorf("%s %v: got %.4f %.4f %.4f, want %.4f %.4f %.4f", tc.query, tc.ranked, r, rr, n, tc.r, tc.rr, tc.nd)
		}
	}
}

// TestAllOrderings scores every ordering of a four-item fixture at five
// cutoffs: every value lies in [0,1] and recall never falls as k grows;
// nDCG is not assumed monotone, since its ideal changes with k too.
func TestAllOrderings(t *testing.T) {
	qrels := map[string]int32{"a": 3, "b": 2, "c": 1, "d": 0}
	best := []string{"a", "b", "c", "d"}
	items := slices.Clone(best)
	count := 0
	var sawNDCGDrop bool
	permute(items, 0, func(p []string) {
		count++
		prevRecall, prevNDCG := -1.0, -1.0
		for k := 1; k <= 5; k++ {
			r, rr, n := score(t, qrels, p, k)
			for _, v := range []float64{r, rr, n} {
				if v < 0 || v > 1 || math.IsNaN(v) {
					t.Fatalf("%v k=%d: value %v outside [0,1]", p, k, v)
				}
			}
			if r < prevRecall {
				t.Fatalf("%v: recall fell from %v to %v at k=%d", p, prevRecall, r, k)
			}
			if n < prevNDCG {
				sawNDCGDrop = true
			}
			prevRecall, prevNDCG = r, n
		}
		if r, _, n := score(t, qrels, p, 5); r != 1 || (slices.Equal(p, best) != (n == 1)) {
			t.Fatalf("%v: full list recall %v ndcg %v", p, r, n)
		}
	})
	if count != 24 {
		t.Fatalf("saw %d orderings, want 24", count)
	}
	if !sawNDCGDrop {
		t.Fatal("expected some ordering where nDCG falls as k grows (its ideal grows too)")
	}
}

func permute(a []string, i int, f func([]string)) {
	if i == len(a) {
		f(slices.Clone(a))
		return
	}
	for j := i; j < len(a); j++ {
		a[i], a[j] = a[j], a[i]
		permute(a, i+1, f)
		a[i], a[j] = a[j], a[i]
	}
}

func TestFamilies(t *testing.T) {
	// Grades of a ranked list with a hole (unjudged) at rank 3.
	grades := []int32{0, 3, Unjudged, 1, 0, 2}
	ideal := []int32{3, 2, 2, 1, 0, 0}
	l := NewList(grades, ideal)
	p := Policy{MinGrade: 1, Gain: Exp}
	tests := []struct {
		name string
		want float64
	}{
		{"P@2", 0.5},
		{"P@10", 0.3},
		{"R@4", 2.0 / 4},
		{"R", 3.0 / 4},
		{"RR", 0.5},
		{"RR@1", 0},
		{"Success@1", 0},
		{"Success@2", 1},
		{"AP", (1.0/2 + 2.0/4 + 3.0/6) / 4},
		{"AP@4", (1.0/2 + 2.0/4) / 4},
		{"R-prec", 2.0 / 4},
		{"Judged@4", 0.75},
		{"Judged@10", 0.5},
		{"SetP", 0.5},
		{"NumRet", 6},
		{"NumRel", 4},
		{"NumRelRet", 3},
		// bpref: R=4, N=2 judged non-relevant; rel at rank 2 has 1 nonrel above: 1-1/2;
		// rank 4: 1 above (unjudged ignored): 1-1/2; rank 6: 2 above: 1-2/2.
		{"bpref", (0.5 + 0.5 + 0) / 4},
	}
	for _, tc := range tests {
		ms, err := Parse(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := ms[0].Compute(l, p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNDCGGains(t *testing.T) {
	l := NewList([]int32{1, 3}, []int32{3, 1})
	want := func(g func(int32) float64) float64 {
		return (g(1) + g(3)/math.Log2(3)) / (g(3) + g(1)/math.Log2(3))
	}
	exp := want(func(g int32) float64 { return math.Exp2(float64(g)) - 1 })
	lin := want(func(g int32) float64 { return float64(g) })
	ms, _ := Parse("nDCG@2")
	if got := ms[0].Compute(l, Policy{MinGrade: 1, Gain: Exp}); math.Abs(got-exp) > 1e-12 {
		t.Errorf("exp gain %v, want %v", got, exp)
	}
	if got := ms[0].Compute(l, Policy{MinGrade: 1, Gain: Linear}); math.Abs(got-lin) > 1e-12 {
		t.Errorf("linear gain %v, want %v", got, lin)
	}
}

// A threshold of two changes the hit test and the recall denominator.
func TestMinGradeChangesBothSides(t *testing.T) {
	l := NewList([]int32{1, 2}, []int32{3, 2, 1})
	r, _ := Parse("R@2")
	rr, _ := Parse("RR@2")
	p := Policy{MinGrade: 2}
	if got := r[0].Compute(l, p); got != 0.5 {
		t.Errorf("recall at threshold 2 = %v, want 1/2", got)
	}
	if got := rr[0].Compute(l, p); got != 0.5 {
		t.Errorf("RR at threshold 2 = %v, want 1/2", got)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"nDCG@10", []string{"nDCG@10"}, ""},
		{"ndcg@10", []string{"nDCG@10"}, ""},
		{"ndcg_cut.10", []string{"ndcg_cut_10"}, ""},
		{"ndcg_cut_10", []string{"ndcg_cut_10"}, ""},
		{"ndcg_cut.5,10", []string{"ndcg_cut_5", "ndcg_cut_10"}, ""},
		{"recall.100", []string{"recall_100"}, ""},
		{"recall.5,10", []string{"recall_5", "recall_10"}, ""},
		{"recall@100", []string{"R@100"}, ""},
		{"recip_rank", []string{"recip_rank"}, ""},
		{"P.10", []string{"P_10"}, ""},
		{"P.5,10", []string{"P_5", "P_10"}, ""},
		{"P_10", []string{"P_10"}, ""},
		{"P", []string{"P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000"}, ""},
		{"success", []string{"success_1", "success_5", "success_10"}, ""},
		{"map", []string{"map"}, ""},
		{"map_cut.10", []string{"map_cut_10"}, ""},
		{"Rprec", []string{"Rprec"}, ""},
		{"rprec", []string{"R-prec"}, ""},
		{"num_rel_ret", []string{"num_rel_ret"}, ""},
		{"success.5", []string{"success_5"}, ""},
		{"MRR@10", []string{"RR@10"}, ""},
		{"ndcg", []string{"ndcg"}, ""},
		{"ndcg.1=1,2=3", []string{"ndcg_1=1,2=3"}, ""},
		{"ndcg_1=1,2=3", []string{"ndcg_1=1,2=3"}, ""},
		{"nDCG(gains={0:0,1:1,2:3})@10", []string{"nDCG(gains={0:0,1:1,2:3})@10"}, ""},
		{"ndcg(gains=2:3,1:1)@5", []string{"nDCG(gains={1:1,2:3})@5"}, ""},
		{"iprec_at_recall.0.1,0.5", []string{"iprec_at_recall_0.10", "iprec_at_recall_0.50"}, ""},
		{"iprec_at_recall_0.10", []string{"iprec_at_recall_0.10"}, ""},
		{"11pt_avg", []string{"11pt_avg"}, ""},
		{"gm_map", []string{"gm_map"}, ""},
		{"infAP", []string{"infAP"}, ""},
		{"set_F", []string{"set_F"}, ""},
		{"set_F.0.5", []string{"set_F_0.5"}, ""},
		{"SetF(beta=0.5)", []string{"SetF(beta=0.5)"}, ""},
		{"F1@10", []string{"F1@10"}, ""},
		{"RBP", []string{"RBP"}, ""},
		{"RBP(p=0.9)", []string{"RBP(p=0.9)"}, ""},
		{"rbp.p=0.8", []string{"rbp_p=0.8"}, ""},
		{"ERR@10", []string{"ERR@10"}, ""},
		{"DCG@10", []string{"DCG@10"}, ""},
		{"ndcg_burges@10", []string{"ndcg_burges@10"}, ""},
		{"hit_rate@5", []string{"hit_rate@5"}, ""},
		{"hits@5", []string{"hits@5"}, ""},
		{"r-precision", []string{"r-precision"}, ""},
		{"RBP(p=1)", nil, "0 < x < 1"},
		{"SetF(beta=-1)", nil, "at least 0"},
		{"iprec_at_recall.1.5", nil, "from 0 to 1"},
		{"ndcg.1=x", nil, "not a finite number"},
		{"nDCG(gains={1:1,1:2})@10", nil, "given twice"},
		{"ndcg_cut", []string{"ndcg_cut_5", "ndcg_cut_10", "ndcg_cut_15", "ndcg_cut_20", "ndcg_cut_30", "ndcg_cut_100", "ndcg_cut_200", "ndcg_cut_500", "ndcg_cut_1000"}, ""},
		{"nDCG@0", nil, "not a positive integer"},
		{"nDCG@-3", nil, "not a positive integer"},
		{"nDCG@2.5", nil, "not a positive integer"},
		{"nDCG@x", nil, "not a positive integer"},
		{"P@99999999999999999999", nil, `cutoff "99999999999999999999" is beyond 9223372036854775807`},
		{"P@-99999999999999999999", nil, "not a positive integer"},
		{"Judged", nil, "needs a cutoff"},
		{"bpref@10", nil, "takes no cutoff"},
		{"XYZ@10", nil, "unknown metric \"XYZ@10\" (run"},
		{"nDGC@3", nil, `unknown metric "nDGC@3": did you mean "nDCG@3"?`},
		{"Recal@100", nil, `did you mean "recall@100"?`},
		{"ndgc_cut.10", nil, `did you mean "ndcg_cut.10"?`},
		{"mapp", nil, `did you mean "map"?`},
		{"", nil, "unknown metric"},
	}
	for _, tc := range tests {
		ms, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		var got []string
		for _, m := range ms {
			got = append(got, m.Name())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseAllDropsRepeats(t *testing.T) {
	ms, err := ParseAll([]string{"nDCG@10", "ndcg@10", "R@5"})
	if err != nil || len(ms) != 2 {
		t.Fatalf("got %v, %v", ms, err)
	}
}

func TestEmptyListScoresZero(t *testing.T) {
	l := NewList(nil, []int32{3, 1})
	p := Policy{MinGrade: 1}
	for _, f := range Families {
		m := Metric{Family: f}
		if f.Cutoff == NeedsCutoff {
			m.K = 5
		}
		got := m.Compute(l, p)
		want := 0.0
		switch f.Name {
		case "NumRel", "num_rel":
			want = 2
		case "RBP-resid":
			want = 1 // nothing seen: all of RBP's mass is still open
		}
		if got != want {
			t.Errorf("%s of an empty list = %v, want %v", m.Name(), got, want)
		}
	}
}

// TestSortDown checks the ideal order against a comparison sort: grades
// of a few values, negative ones, and ranges too wide to count.
func TestSortDown(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, span := range []int32{1, 2, 5, 63, 64, 65, 1 << 20} {
		for n := range 200 {
			grades := make([]int32, n)
			for i := range grades {
				grades[i] = rng.Int32N(span) - span/3
			}
			want := slices.Clone(grades)
			slices.Sort(want)
			slices.Reverse(want)
			if sortDown(grades); !slices.Equal(grades, want) {
				t.Fatalf("span %d: got %v, want %v", span, grades, want)
			}
		}
	}
}

// TestDiscount: the table holds exactly what math.Log2 computes, and ranks
// past it are computed alike.
func TestDiscount(t *testing.T) {
	for i := range 3000 {
		if got, want := discount(i), math.Log2(float64(i)+2); got != want {
			t.Fatalf("discount(%d) = %v, want %v", i, got, want)
		}
	}
}

// TestGainMapBounds: a gain map's grades are those a judgment holds; past
// them, or the mark of an unjudged item, is an error naming the limit.
func TestGainMapBounds(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{"2147483647=1", ""},
		{"-2147483647=1", ""},
		{"2147483648=1", "grade 2147483648 is beyond -2147483647..2147483647"},
		{"4294967298=1", "grade 4294967298 is beyond"},
		{"-2147483648=1", "grade -2147483648 is beyond"},
		{"x=1", "is not grade=gain"},
	} {
		m, err := parseGainMap(c.in)
		if c.err == "" && (err != nil || len(*m) != 1) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseGainMap(%q): %v, want %q", c.in, err, c.err)
		}
	}
}
