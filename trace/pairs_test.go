package trace

import (
	"math"
	"runtime"
	"testing"
	"unsafe"
)

func TestPairSet(t *testing.T) {
	type add struct {
		h     uint64
		c     uint32
		line  int
		first int // -1: new pair
	}
	big := math.MaxUint32 + 7
	for _, tc := range []struct {
		name string
		adds []add
	}{
		{"duplicate", []add{{1, 1, 1, -1}, {2, 2, 2, -1}, {1, 1, 3, 1}, {2, 2, 4, 2}}},
		{"same hash other check", []add{{5, 1, 1, -1}, {5, 2, 2, -1}, {5, 2, 3, 2}, {5, 1, 4, 1}}},
		{"colliding slots", []add{{16, 0, 1, -1}, {32, 0, 2, -1}, {48, 0, 3, -1}, {32, 0, 9, 2}, {48, 0, 9, 3}}},
		{"line zero", []add{{7, 7, 0, -1}, {7, 7, 5, 0}}},
		{"lines past 32 bits", []add{{3, 3, big, -1}, {4, 4, math.MaxUint32 - 2, -1}, {3, 3, big + 1, big}, {4, 4, 1, math.MaxUint32 - 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s pairSet
			for _, a := range tc.adds {
				first, dup := s.add(a.h, a.c, a.line)
				if dup != (a.first >= 0) || dup && first != a.first {
					t.Fatalf("add(%d, %d, %d) = %d, %v; want %d", a.h, a.c, a.line, first, dup, a.first)
				}
			}
		})
	}
}

// TestPairSetGrowth adds many pairs, some with lines too large for a slot,
// through several doublings, and finds each again.
func TestPairSetGrowth(t *testing.T) {
	const n = 100000
	line := func(i int) int {
		if i%1000 == 0 {
			return math.MaxUint32 + i
		}
		return i + 1
	}
	var s pairSet
	for i := range n {
		if first, dup := s.add(uint64(i)*0x9e3779b97f4a7c15, uint32(i), line(i)); dup {
			t.Fatalf("pair %d: duplicate of line %d", i, first)
		}
	}
	if 4*s.n > 3*len(s.slots) || s.n != n {
		t.Fatalf("%d pairs in %d slots", s.n, len(s.slots))
	}
	for i := range n {
		if first, dup := s.add(uint64(i)*0x9e3779b97f4a7c15, uint32(i), -1); !dup || first != line(i) {
			t.Fatalf("pair %d: got %d, %v; want line %d", i, first, dup, line(i))
		}
	}
}

// BenchmarkPairSet adds a million distinct pairs and reports the bytes
// allocated for each (B/pair, every doubling included) and the bytes each
// holds at the end (B/pair-held).
func BenchmarkPairSet(b *testing.B) {
	const n = 1000000
	b.ReportAllocs()
	var before, after runtime.MemStats
	var held int
	runtime.ReadMemStats(&before)
	for b.Loop() {
		var s pairSet
		for i := range n {
			s.add(uint64(i)*0x9e3779b97f4a7c15, uint32(i), i+1)
		}
		held = len(s.slots) * int(unsafe.Sizeof(pairSlot{}))
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/n, "B/pair")
	b.ReportMetric(float64(held)/n, "B/pair-held")
}
