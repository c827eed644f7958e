package stages

import "math"

// exactSum adds float64s without rounding (Shewchuk's non-overlapping
// partials, as Python's math.fsum), so a total does not depend on the order
// in which traces arrive from the parallel readers: its value is the exact
// sum rounded once.
type exactSum struct{ partials []float64 }

// add adds x.
func (s *exactSum) add(x float64) {
	i := 0
	for _, y := range s.partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x)
		if lo != 0 {
			s.partials[i] = lo
			i++
		}
		x = hi
	}
	s.partials = append(s.partials[:i], x)
}

// merge adds every term of o.
func (s *exactSum) merge(o exactSum) {
	for _, x := range o.partials {
		s.add(x)
	}
}

// value is the sum rounded to the nearest float64 (ties to even).
func (s *exactSum) value() float64 {
	p := s.partials
	n := len(p)
	if n == 0 {
		return 0
	}
	n--
	hi, lo := p[n], 0.0
	for n > 0 {
		x := hi
		n--
		y := p[n]
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	// Round half to even correctly when the rest lies on the same side as
	// the rounding error.
	if n > 0 && (lo < 0 && p[n-1] < 0 || lo > 0 && p[n-1] > 0) {
		y := lo * 2
		x := hi + y
		if y == x-hi {
			hi = x
		}
	}
	return hi
}
