package treceval

// docSet is an open-addressing hash set of small integers that stand for
// documents; callers supply each document's hash and an equality test, so
// the set needs no copy of the docnos.
type docSet struct {
	slots []uint64 // 0 marks an empty slot; else the hash's high 32 bits, then value + 1
}

// reset empties the set and sizes it for n values.
func (s *docSet) reset(n int) {
	size := 16
	for size < 4*n {
		size *= 2
	}
	if cap(s.slots) < size {
		s.slots = make([]uint64, size)
	}
	s.slots = s.slots[:size]
	clear(s.slots)
}

// add inserts v unless a value equal to it (same hash, and same reports
// true) is present, in which case it returns that value and true.
func (s *docSet) add(h uint64, v int32, same func(int32) bool) (int32, bool) {
	mask := uint64(len(s.slots) - 1)
	tag := h &^ 0xffffffff
	for k := h & mask; ; k = (k + 1) & mask {
		e := s.slots[k]
		if e == 0 {
			s.slots[k] = tag | uint64(v+1)
			return 0, false
		}
		if e&^0xffffffff == tag && same(int32(e)-1) {
			return int32(e) - 1, true
		}
	}
}

// find returns the value equal to a document with hash h, if any.
func (s *docSet) find(h uint64, same func(int32) bool) (int32, bool) {
	mask := uint64(len(s.slots) - 1)
	tag := h &^ 0xffffffff
	for k := h & mask; ; k = (k + 1) & mask {
		e := s.slots[k]
		if e == 0 {
			return 0, false
		}
		if e&^0xffffffff == tag && same(int32(e)-1) {
			return int32(e) - 1, true
		}
	}
}
