package stats_test

import (
	"fmt"

	"github.com/ragstat/ragstat/stats"
)

// A paired comparison of two systems' per-query values: the mean
// difference, its bootstrap interval, the sign-flip test (exact at this
// size) and win/tie/loss.
func ExampleCompare() {
	base := []float64{0.50, 0.40, 0.70, 0.20, 0.60, 0.30, 0.80, 0.50}
	cand := []float64{0.60, 0.50, 0.70, 0.40, 0.65, 0.35, 0.90, 0.45}
	d, err := stats.Compare(base, cand, stats.Options{Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("diff %+.4f [%+.4f, %+.4f], p %.4f (exact %v), %d/%d/%d\n",
		d.MeanDiff, d.Bootstrap.Lo, d.Bootstrap.Hi, d.SignFlip.P, d.SignFlip.Exact, d.Wins, d.Ties, d.Losses)
	// Output: diff +0.0688 [+0.0188, +0.1187], p 0.0625 (exact true), 6/1/1
}
