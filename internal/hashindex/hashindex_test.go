package hashindex

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestAgreesWithMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOf(rapid.StringN(0, 6, -1)).Draw(t, "keys")
		probes := rapid.SliceOf(rapid.StringN(0, 6, -1)).Draw(t, "probes")
		var x Index
		x.Reset(len(keys))
		m := map[string]int{}
		try := rapid.Bool().Draw(t, "try") // TryAdd first, as the hot loops do
		for i, k := range keys {
			first, seen := m[k]
			h, got := Hash(k), i
			if !try || !x.TryAdd(h, i) {
				got = x.AddHashed(Strings(keys), i, h)
			}
			if seen && got != first || !seen && got != i {
				t.Fatalf("adding %q at %d gave %d, map says first %d seen %v", k, i, got, first, seen)
			}
			if !seen {
				m[k] = i
			}
		}
		for _, p := range append(probes, keys...) {
			want, ok := m[p]
			if !ok {
				want = -1
			}
			if got := x.Find(Strings(keys), p); got != want {
				t.Fatalf("Find(%q) = %d, want %d", p, got, want)
			}
		}
	})
}

func TestEmpty(t *testing.T) {
	var x Index
	if x.Find(nil, "a") != -1 {
		t.Fatal("zero Index found a key")
	}
}

func BenchmarkAddFind(b *testing.B) {
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("msmarco_passage_%02d_%09d", i%69, i*7919)
	}
	var x Index
	for b.Loop() {
		x.Reset(len(keys))
		for i, k := range keys {
			if h := Hash(k); !x.TryAdd(h, i) {
				x.AddHashed(Strings(keys), i, h)
			}
		}
		for _, k := range keys {
			x.Find(Strings(keys), k)
		}
	}
}

// TestHashUsesEveryByte checks that keys differing in one byte, or only in
// length, hash apart, at every length up to 70.
func TestHashUsesEveryByte(t *testing.T) {
	seen := map[uint64]string{}
	base := []byte(strings.Repeat("msmarco_passage_01_575625408", 3))
	for n := 0; n <= 70; n++ {
		for i := -1; i < n; i++ {
			k := slices.Clone(base[:n])
			if i >= 0 {
				k[i] ^= 0x20
			}
			h := hash(string(k))
			if other, dup := seen[h]; dup && other != string(k) {
				t.Fatalf("hash(%q) = hash(%q)", k, other)
			}
			seen[h] = string(k)
		}
	}
}

// TestLargeIndex adds more keys than the sizes that keep the table a third
// full (every tenth a repeat of an earlier one) and finds each.
func TestLargeIndex(t *testing.T) {
	const n = 200_000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("doc%d", i)
		if i%10 == 9 {
			keys[i] = keys[i/2]
		}
	}
	first := map[string]int{}
	var x Index
	x.Reset(n)
	for i, k := range keys {
		want, seen := first[k]
		if !seen {
			want, first[k] = i, i
		}
		h := Hash(k)
		if !x.TryAdd(h, i) {
			if got := x.AddHashed(Strings(keys), i, h); got != want {
				t.Fatalf("adding %q at %d gave %d, want %d", k, i, got, want)
			}
		} else if want != i {
			t.Fatalf("%q at %d placed, want found at %d", k, i, want)
		}
	}
	for _, k := range keys {
		if got := x.Find(Strings(keys), k); got != first[k] {
			t.Fatalf("Find(%q) = %d, want %d", k, got, first[k])
		}
	}
}
