package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/comparetest"
	"github.com/ragstat/ragstat/internal/golden"
	"github.com/ragstat/ragstat/stats"
)

// TestRender checks every text format against its golden file, and that
// the JSON reads back to the same document.
func TestRenderComparison(t *testing.T) {
	r := comparetest.Result(t)
	for _, format := range CompareFormats {
		var buf bytes.Buffer
		if err := RenderComparison(&buf, format, r); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "compare-fixture."+format+".golden"), buf.String())
		if format != "json" {
			continue
		}
		back, err := ReadComparison(input.FromBytes("compare.json", buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		RenderComparison(&again, "json", back)
		if again.String() != buf.String() {
			t.Error("JSON read back renders differently")
		}
		for _, bad := range []string{strings.Replace(buf.String(), `"base":`, `"colour": 1, "base":`, 1),
			strings.Replace(buf.String(), `"kind": "compare"`, `"kind": "eval"`, 1)} {
			if _, err := ReadComparison(input.FromBytes("bad.json", []byte(bad))); err == nil || bad == buf.String() {
				t.Errorf("a bad result was read: %v", err)
			}
		}
	}
	if err := RenderComparison(&bytes.Buffer{}, "yaml", r); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// BenchmarkRenderComparison writes a comparison of 10,000 queries in every format, the
// per-query values of every system included in JSON.
func BenchmarkRenderComparison(b *testing.B) {
	r, err := compare.Compare(comparetest.Large(), compare.Options{Stats: stats.Options{Seed: 1}})
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range CompareFormats {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := RenderComparison(io.Discard, format, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestComparisonJSONMatchesEncoder checks the streamed document against
// encoding/json's, on results with hostile names, texts, and empty or
// missing values.
func TestComparisonJSONMatchesEncoder(t *testing.T) {
	base := comparetest.Result(t)
	names := []string{"s", "<b>&", "q\"uote", "\u2028", "tab\there", "caf\u00e9", "\xff", "queries", "values"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		r := *base
		r.Queries, r.Text, r.Values = nil, nil, nil
		n := rng.IntN(5)
		if rng.IntN(4) > 0 {
			r.Queries = []string{}
			for q := range n {
				r.Queries = append(r.Queries, names[rng.IntN(len(names))]+strconv.Itoa(q))
			}
		}
		if rng.IntN(2) == 0 {
			for range n {
				r.Text = append(r.Text, names[rng.IntN(len(names))])
			}
		}
		if rng.IntN(5) > 0 {
			r.Values = map[string]map[string][]float64{}
			for range rng.IntN(4) {
				sys := names[rng.IntN(len(names))]
				if rng.IntN(6) == 0 {
					r.Values[sys] = nil
					continue
				}
				r.Values[sys] = map[string][]float64{}
				for range rng.IntN(4) {
					var vs []float64
					if rng.IntN(6) > 0 {
						vs = []float64{}
					}
					for range n {
						vs = append(vs, []float64{0, 1, rng.Float64(), 1e-9, math.Copysign(0, -1)}[rng.IntN(5)])
					}
					r.Values[sys][names[rng.IntN(len(names))]] = vs
				}
			}
		}
		var got, want bytes.Buffer
		if err := RenderComparison(&got, "json", &r); err != nil {
			t.Fatal(err)
		}
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("case %d differs from encoding/json:\n got %s\nwant %s", i, got.String(), want.String())
		}
	}
	r := *base
	r.Values = map[string]map[string][]float64{"a": {"m": {math.NaN()}}}
	var buf bytes.Buffer
	if err := RenderComparison(&buf, "json", &r); err == nil || buf.Len() > 0 {
		t.Errorf("NaN: error %v after %d bytes, want an error before any output", err, buf.Len())
	}
}

// The words of a comparison's results: d_z undefined, where relevant items
// sit, the frontier and the gate's power.
func TestComparisonText(t *testing.T) {
	for _, f := range []compare.Float{compare.Float(math.Inf(1)), compare.Float(math.NaN())} {
		if effect(f) != "-" || finiteOrEmpty(f) != "" {
			t.Errorf("%v: table %q, CSV %q", float64(f), effect(f), finiteOrEmpty(f))
		}
	}
	rk := &compare.Ranking{Relevant: []compare.Item{{ID: "d1", Rank: 3, Grade: 3}, {ID: "d2", Grade: 1}}}
	if got := Ranks(rk, 1); got != "3@3 (+1)" {
		t.Errorf("ranks = %q", got)
	}
	cost, lat := 0.02, 950.0
	worse := compare.FrontierSystem{System: "worse", Quality: 0.7, CostPerQuery: &cost, CostQueries: 2, P90Latency: &lat, Timed: 1, BeatenBy: []string{"good"}}
	for _, c := range []struct {
		f     compare.Frontier
		parts []string
	}{
		{compare.Frontier{Costed: true, Timed: true, Systems: []compare.FrontierSystem{worse}},
			[]string{"frontier worse: quality 0.7000, cost 0.020000 USD per query (2 queries), p90 latency 950.0 ms (1 queries); beaten by good",
				"at least as good on quality, cost and p90 latency"}},
		{compare.Frontier{Timed: true, Systems: []compare.FrontierSystem{{System: "cheap", Quality: 0.5, P90Latency: &lat, Timed: 3, BeatenBy: []string{"fast"}}}},
			[]string{"frontier cheap: quality 0.5000, cost not priced, p90 latency 950.0 ms (3 queries); beaten by fast",
				"cost: not priced (give --price-in and --price-out with --tokenizer)", "at least as good on quality and p90 latency"}},
		{compare.Frontier{Costed: true, Systems: []compare.FrontierSystem{{System: "fast", Quality: 0.6, CostPerQuery: &cost, OnFrontier: true}}},
			[]string{"no latency recorded", "on the frontier *", "at least as good on quality and cost, and strictly"}},
	} {
		text := strings.Join(FrontierLines(&c.f), "\n")
		for _, p := range c.parts {
			if !strings.Contains(text, p) {
				t.Errorf("lines lack %q:\n%s", p, text)
			}
		}
	}
	mde := 0.268586
	for _, c := range []struct {
		g    compare.GatePower
		want string
	}{
		{compare.GatePower{Rule: "nDCG@10 < -0.01", Candidate: "b", Queries: 4, Threshold: -0.01, Power: 0.8, MDE: &mde},
			"4 queries resolve differences of 0.2686 (95% confidence, 80% power); a change of 0.0100 cannot be told from noise"},
		{compare.GatePower{Rule: "ndcg@10 < -0.3", Candidate: "b", Queries: 4, Threshold: -0.3, Power: 0.8, MDE: &mde, Protects: true}, "it can catch that"},
		{compare.GatePower{Rule: "nDCG@10 < -0.01", Candidate: "b", Queries: 1, Threshold: -0.01}, "1 queries cannot resolve any difference"},
	} {
		if l := gateLine(c.g, 0.95); !strings.Contains(l, c.want) {
			t.Errorf("gate line %q, want %q in it", l, c.want)
		}
	}
}
