package stages

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ragstat/ragstat/internal/scratch"
)

// TestValueFilePercentiles checks the percentiles selected from a file
// against those of the values held in memory.
func TestValueFilePercentiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		n    int
		gen  func() float64
	}{
		{"one", 1, func() float64 { return 7 }},
		{"latencies", 1000, func() float64 { return r.ExpFloat64() * 250 }},
		{"tokens", 5001, func() float64 { return float64(r.IntN(4000)) }},
		{"signed", 777, func() float64 { return r.NormFloat64() * 1e6 }},
		{"repeated", 300, func() float64 { return float64(r.IntN(3)) - 1.5 }},
		{"empty", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := createTemp(t)
			if err != nil {
				t.Fatal(err)
			}
			v := newValueFile(f)
			var xs []float64
			for range tc.n {
				x := tc.gen()
				xs = append(xs, x)
				if err := v.add(x); err != nil {
					t.Fatal(err)
				}
			}
			got, err := v.percentiles("x")
			if err != nil {
				t.Fatal(err)
			}
			if want := percentiles("x", xs); got != want {
				t.Errorf("from the file %+v, in memory %+v", got, want)
			}
		})
	}
}

func createTemp(t *testing.T) (*os.File, error) {
	s := &Spilled{dir: t.TempDir()}
	f, err := s.temp()
	if err == nil {
		t.Cleanup(func() { scratch.Remove(f) })
	}
	return f, err
}
