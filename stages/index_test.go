package stages

import (
	"os"
	"slices"
	"testing"
)

// TestDiskIndex sorts entries through several runs and finds each hash's
// offsets, in order, also when they straddle pages.
func TestDiskIndex(t *testing.T) {
	dir := t.TempDir()
	b := indexBuilder{temp: func() (*os.File, error) { return os.CreateTemp(dir, "x") }}
	const n = 2*indexRun + 1000
	want := map[uint64][]int64{}
	for i := range n {
		h := uint64(i*7919) % (n / 3) // three offsets a hash, mostly
		if i%5000 == 0 {
			h = 42 // one hash across pages
		}
		e := spillEntry(h<<offBits | uint64(i))
		want[h] = append(want[h], int64(i))
		if err := b.add(e); err != nil {
			t.Fatal(err)
		}
	}
	if len(b.runs) != 2 {
		t.Fatalf("%d runs", len(b.runs))
	}
	x, err := b.finish()
	if err != nil {
		t.Fatal(err)
	}
	defer x.close()
	if x.n != n || len(b.runs) != 0 {
		t.Fatalf("%d entries, %d runs left", x.n, len(b.runs))
	}
	for _, h := range []uint64{0, 1, 42, 1234, n/3 - 1, n / 3, 1 << 23} {
		var got []int64
		if err := x.each(h, func(_ int, off int64) (bool, error) { got = append(got, off); return false, nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want[h]) {
			t.Errorf("hash %d: %v; want %v", h, got, want[h])
		}
	}
}
