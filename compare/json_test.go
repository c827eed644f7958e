package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestJSONMatchesEncoder checks the streamed document against
// encoding/json's, on results with hostile names, texts, and empty or
// missing values.
func TestJSONMatchesEncoder(t *testing.T) {
	base := compareFixture(t)
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
		if err := Render(&got, "json", &r); err != nil {
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
	if err := Render(&buf, "json", &r); err == nil || buf.Len() > 0 {
		t.Errorf("NaN: error %v after %d bytes, want an error before any output", err, buf.Len())
	}
}
