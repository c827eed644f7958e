package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TTest is the paired t-test of a zero mean difference: T = MeanDiff /
// (SD/√N) with DF = N-1 degrees of freedom, a two-sided p-value from
// Student's t distribution, and the interval MeanDiff ± t(DF, (1+Level)/2)
// · SD/√N.
//
// When SD is 0 the statistic takes its limit: if MeanDiff is 0 too, T is 0,
// P is 1 and the interval is [0, 0]; otherwise T is ±Inf, P is 0 and the
// interval is [MeanDiff, MeanDiff].
type TTest struct {
	T, DF, P float64
	// Lo and Hi bound the interval at Level.
	Lo, Hi float64
	// Level is the confidence level of the interval.
	Level float64
}

// pairedT returns the t-test for n differences with the given mean and
// sample standard deviation, or nil when n < 2.
func pairedT(n int, mean, sd, level float64) *TTest {
	if n < 2 {
		return nil
	}
	df := float64(n - 1)
	se := sd / math.Sqrt(float64(n))
	t := ratio(mean, se)
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	half := dist.Quantile((1+level)/2) * se
	return &TTest{
		T:     t,
		DF:    df,
		P:     math.Min(1, 2*dist.Survival(math.Abs(t))),
		Lo:    mean - half,
		Hi:    mean + half,
		Level: level,
	}
}
