package trace

import "math"

// pairSet records the line of the first trace of each (query, system) pair,
// known by a 64-bit hash h and an independent 32-bit check c. It is an
// open-addressing table with linear probing, doubled when three quarters
// full: a slot is 16 bytes, so a pair costs 21 to 43 bytes (about a third
// less than a Go map of the same keys at the sizes that matter) and the
// table is one allocation. Two different pairs are taken for one only when
// they agree on all 96 bits, a chance of 2^-96 for any two pairs: about
// 2^-57 that any two of a million pairs are confused.
type pairSet struct {
	slots []pairSlot
	n     int         // slots in use
	far   map[int]int // lines too large for a slot, by slot index
}

// pairSlot is one entry; line 0 marks an empty slot, farLine a line kept in
// pairSet.far.
type pairSlot struct {
	h    uint64
	c    uint32
	line uint32 // the trace's line + 1
}

const farLine = math.MaxUint32

// add records line for the pair (h, c) and returns (0, false), or, when the
// pair is already recorded, its first line and true.
func (s *pairSet) add(h uint64, c uint32, line int) (int, bool) {
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	i := h & mask
	for ; s.slots[i].line != 0; i = (i + 1) & mask {
		if e := s.slots[i]; e.h == h && e.c == c {
			if e.line == farLine {
				return s.far[int(i)], true
			}
			return int(e.line) - 1, true
		}
	}
	s.n++
	if uint64(line) < farLine-1 {
		s.slots[i] = pairSlot{h, c, uint32(line) + 1}
		return 0, false
	}
	s.slots[i] = pairSlot{h, c, farLine}
	if s.far == nil {
		s.far = map[int]int{}
	}
	s.far[int(i)] = line
	return 0, false
}

// grow doubles the table and moves every pair into it.
func (s *pairSet) grow() {
	old, oldFar := s.slots, s.far
	s.slots = make([]pairSlot, max(16, 2*len(old)))
	s.far = nil
	mask := uint64(len(s.slots) - 1)
	for j, e := range old {
		if e.line == 0 {
			continue
		}
		i := e.h & mask
		for s.slots[i].line != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = e
		if e.line == farLine {
			if s.far == nil {
				s.far = map[int]int{}
			}
			s.far[int(i)] = oldFar[j]
		}
	}
}
