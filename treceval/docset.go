package treceval

// docSet is an open-addressing hash set of small integers that stand for
// documents; callers supply each document's hash and an equality test, so
// the set needs no copy of the docnos.
type docSet struct {
	slots  []int32 // value + 1; 0 marks an empty slot
	hashes []uint64
}

// reset empties the set and sizes it for n values.
func (s *docSet) reset(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if cap(s.slots) < size {
		s.slots, s.hashes = make([]int32, size), make([]uint64, size)
	}
	s.slots, s.hashes = s.slots[:size], s.hashes[:size]
	clear(s.slots)
}

// add inserts v unless a value equal to it (same hash, and same reports
// true) is present, in which case it returns that value and true.
func (s *docSet) add(h uint64, v int32, same func(int32) bool) (int32, bool) {
	mask := uint64(len(s.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		e := s.slots[k]
		if e == 0 {
			s.slots[k], s.hashes[k] = v+1, h
			return 0, false
		}
		if s.hashes[k] == h && same(e-1) {
			return e - 1, true
		}
	}
}

// find returns the value equal to a document with hash h, if any.
func (s *docSet) find(h uint64, same func(int32) bool) (int32, bool) {
	mask := uint64(len(s.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		e := s.slots[k]
		if e == 0 {
			return 0, false
		}
		if s.hashes[k] == h && same(e-1) {
			return e - 1, true
		}
	}
}
