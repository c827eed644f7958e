package stats

import (
	"fmt"
	"math"
)

// stratified is PPI with the queries of Exact known exactly: the estimate
// over Filled's queries (PPI without Exact), then every mean and bound
// weighted by their share of the N = |Filled| + |Exact| queries and added
// to the exact queries' share. Without Filled queries the mean is Exact's,
// exactly, and its intervals have no width.
func (in PPIInput) stratified(level float64) (PPIEstimate, error) {
	for i, x := range in.Exact {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return PPIEstimate{}, fmt.Errorf("stats: PPIInput.Exact[%d] is %v", i, x)
		}
	}
	sum := 0.0
	for _, x := range in.Exact {
		sum += x
	}
	nU, N := len(in.Filled), len(in.Filled)+len(in.Exact)
	if nU == 0 {
		if len(in.Human) > 0 || len(in.FilledAudited) > 0 {
			return PPIEstimate{}, fmt.Errorf("stats: PPIInput.Human has %d audited values but PPIInput.Filled no query", len(in.Human))
		}
		if !(level > 0 && level < 1) {
			return PPIEstimate{}, fmt.Errorf("stats: PPI level %v is outside (0, 1)", level)
		}
		m := sum / float64(N)
		return PPIEstimate{Mean: m, Lo: m, Hi: m, Level: level, N: N, FilledMean: m, HumanMean: m, HumanLo: m, HumanHi: m}, nil
	}
	inner := in
	inner.Exact = nil
	est, err := PPI(inner, level)
	if err != nil {
		return PPIEstimate{}, err
	}
	share := func(x float64) float64 { return (sum + float64(nU)*x) / float64(N) }
	est.Mean, est.Lo, est.Hi = share(est.Mean), share(est.Lo), share(est.Hi)
	est.FilledMean, est.HumanMean, est.HumanLo, est.HumanHi = share(est.FilledMean), share(est.HumanMean), share(est.HumanLo), share(est.HumanHi)
	est.SE *= float64(nU) / float64(N)
	est.N = N
	return est, nil
}
