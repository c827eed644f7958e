package stats

import "fmt"

// Options configures a comparison. The zero value asks for the defaults:
// a 95% percentile interval from 10,000 bootstrap resamples, 10,000 sign
// vectors, exact enumeration up to 20 queries, and seed 0.
type Options struct {
	// Level is the confidence level of the bootstrap and t intervals, in
	// (0, 1); 0 means 0.95.
	Level float64
	// Resamples is the number of bootstrap resamples; 0 means 10,000.
	Resamples int
	// Randomizations is the number of random sign vectors drawn by the
	// sign-flip test when it does not enumerate; 0 means 10,000.
	Randomizations int
	// ExactMax is the largest number of queries for which the sign-flip
	// test enumerates all 2^N sign vectors instead of sampling; 0 means 20,
	// a negative value never enumerates, and at most MaxExact is allowed.
	ExactMax int
	// Interval is the bootstrap interval method; "" means Percentile.
	Interval IntervalMethod
	// Seed selects the random streams. The same seed and inputs give the
	// same results on every machine.
	Seed uint64
}

// MaxExact is the largest Options.ExactMax: enumeration takes time and
// memory in proportion to 2^(N/2) per comparison.
const MaxExact = 40

// Defaults applied by Options for zero fields.
const (
	DefaultLevel          = 0.95
	DefaultResamples      = 10000
	DefaultRandomizations = 10000
	DefaultExactMax       = 20
)

// resolve returns the options with defaults filled in, or an error naming
// the first invalid field.
func (o Options) resolve() (Options, error) {
	o.Level = orDefault(o.Level, DefaultLevel)
	o.Resamples = orDefault(o.Resamples, DefaultResamples)
	o.Randomizations = orDefault(o.Randomizations, DefaultRandomizations)
	o.ExactMax = orDefault(o.ExactMax, DefaultExactMax)
	if o.Interval == "" {
		o.Interval = Percentile
	}
	switch {
	case !(o.Level > 0 && o.Level < 1):
		return o, fmt.Errorf("stats: confidence level %v is not in (0, 1)", o.Level)
	case o.Resamples < 0:
		return o, fmt.Errorf("stats: negative number of resamples %d", o.Resamples)
	case o.Randomizations < 0:
		return o, fmt.Errorf("stats: negative number of randomizations %d", o.Randomizations)
	case o.ExactMax > MaxExact:
		return o, fmt.Errorf("stats: exact enumeration limit %d exceeds %d", o.ExactMax, MaxExact)
	case o.Interval != Percentile && o.Interval != BCa:
		return o, fmt.Errorf("stats: unknown interval method %q (want %q or %q)", o.Interval, Percentile, BCa)
	}
	return o, nil
}

func orDefault[T int | float64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}
