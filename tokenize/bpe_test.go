package tokenize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestMergeLong: the heap merge of long pieces gives the same tokens as the
// scan of all pairs, on runs of one character and on random pieces over
// small alphabets (many merges, many equal ranks), in every encoding.
func TestMergeLong(t *testing.T) {
	pieces := []string{"", "a", "aa"}
	for _, unit := range []string{" ", "a", "\n", "0", "é", "中", "ab", "!", "\t\n", "A"} {
		for _, n := range []int{1, 2, 3, 7, 64, 129, 300, 1000} {
			pieces = append(pieces, strings.Repeat(unit, n))
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, alphabet := range []string{"ab", "abc ", "e t", "=+/09Az", "\n \t"} {
		for range 30 {
			b := make([]byte, 1+rnd.IntN(700))
			for i := range b {
				b[i] = alphabet[rnd.IntN(len(alphabet))]
			}
			pieces = append(pieces, string(b))
		}
	}
	for _, name := range encodings() {
		enc, err := newTiktoken(name)
		if err != nil {
			t.Fatal(err)
		}
		var scan, heap merger
		for _, p := range pieces {
			want := slices.Clone(scan.mergeScan(p, enc.ranks))
			if got := heap.mergeLong(p, enc.ranks); !slices.Equal(got, want) {
				t.Errorf("%s: %q (%d bytes): mergeLong %v, mergeScan %v", name, short(p), len(p), got, want)
			}
		}
	}
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// FuzzMergeLong: on any piece, the queue merge of long pieces
// and the scan of all pairs give the same tokens.
func FuzzMergeLong(f *testing.F) {
	for _, s := range []string{"", " ", strings.Repeat(" ", 300), strings.Repeat("ab", 100), "aaaaaaaaaaaaaaaaaaaaaaab", "\n\n\n \n", "é中🙂é中🙂"} {
		f.Add(s)
	}
	enc, err := newTiktoken("cl100k_base")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, piece string) {
		if len(piece) > 4096 {
			return
		}
		var scan, heap merger
		want := slices.Clone(scan.mergeScan(piece, enc.ranks))
		if got := heap.mergeLong(piece, enc.ranks); !slices.Equal(got, want) {
			t.Fatalf("%q: mergeLong %v, mergeScan %v", piece, got, want)
		}
	})
}
