package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// IntervalMethod names a way to turn bootstrap resamples into a confidence
// interval.
type IntervalMethod string

// Interval methods.
const (
	// Percentile takes the (1-Level)/2 and (1+Level)/2 quantiles of the
	// resampled mean differences.
	Percentile IntervalMethod = "percentile"
	// BCa is Efron's bias-corrected and accelerated interval: the quantile
	// levels are shifted by the bias z0 = Φ⁻¹(share of resampled means below
	// the observed one, ties counting half) and the acceleration a from the
	// jackknife, which for a mean is Σe³ / (6 (Σe²)^1.5) with e the deviations
	// of the differences from their mean. It corrects the percentile
	// interval's coverage for skewed differences. The share is kept within
	// half a resample of 0 and 1 so that z0 is finite, and a level the
	// mapping leaves undefined (1 - a(z0+z) <= 0) takes its limit, 0 or 1.
	BCa IntervalMethod = "bca"
)

// Interval is a bootstrap confidence interval of the mean difference.
// Each resample draws N queries with replacement, keeping every query's
// base and candidate values together, and takes the mean difference.
// Quantiles interpolate linearly between order statistics (type 7). When
// every difference is equal the interval collapses to that value.
type Interval struct {
	Lo, Hi float64
	// Level is the confidence level, such as 0.95.
	Level float64
	// Method is the interval method used.
	Method IntervalMethod
	// Resamples is the number of bootstrap resamples.
	Resamples int
}

// bootstrapInterval computes the interval of a comparison from its sorted
// resampled means, the observed mean computed the way they were, and the
// differences.
func bootstrapInterval(sorted []float64, observed float64, d []float64, o Options) Interval {
	alpha := 1 - o.Level
	lo, hi := alpha/2, 1-alpha/2
	if o.Interval == BCa {
		z0 := bias(sorted, observed)
		a := acceleration(d)
		lo, hi = bcaLevel(lo, z0, a), bcaLevel(hi, z0, a)
	}
	return Interval{
		Lo:        quantile(sorted, lo),
		Hi:        quantile(sorted, hi),
		Level:     o.Level,
		Method:    o.Interval,
		Resamples: len(sorted),
	}
}

// bias returns the BCa bias correction z0. The share is kept within half a
// resample of 0 and 1 so that z0 stays finite.
func bias(sorted []float64, observed float64) float64 {
	below, _ := slices.BinarySearch(sorted, observed)
	notAbove, _ := slices.BinarySearch(sorted, math.Nextafter(observed, math.Inf(1)))
	b := float64(len(sorted))
	share := (float64(below) + float64(notAbove-below)/2) / b
	share = min(max(share, 0.5/b), 1-0.5/b)
	return distuv.UnitNormal.Quantile(share)
}

// acceleration returns the BCa acceleration of the mean of d, 0 when the
// differences do not vary. The ratio does not depend on the scale of d, so
// the deviations are divided by the largest of them first: squares and
// cubes of differences near the ends of the float64 range neither
// underflow to 0/0 nor overflow to Inf/Inf.
func acceleration(d []float64) float64 {
	m := mean(d)
	scale := 0.0
	for _, x := range d {
		scale = max(scale, math.Abs(x-m))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return 0
	}
	var sq, cube float64
	for _, x := range d {
		e := (x - m) / scale
		sq += e * e
		cube += e * e * e
	}
	return cube / (6 * math.Pow(sq, 1.5))
}

// bcaLevel maps the quantile level p of the percentile interval to the BCa
// level. Where 1 - a(z0+z) is not positive the mapping has no value and
// the level takes its limit, 0 or 1.
func bcaLevel(p, z0, a float64) float64 {
	z := z0 + distuv.UnitNormal.Quantile(p)
	den := 1 - a*z
	if den <= 0 {
		return math.Max(0, math.Copysign(1, z))
	}
	return distuv.UnitNormal.CDF(z0 + z/den)
}

// quantile returns the p-quantile of sorted, interpolating linearly between
// order statistics.
func quantile(sorted []float64, p float64) float64 {
	pos := p * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i] + f*(sorted[i+1]-sorted[i])
}
