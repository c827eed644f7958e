package tokenize

import (
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// TestRankTable checks that every token of every encoding is found with
// its rank, and that strings near the tokens (one byte short, one byte
// longer, one byte changed) are found only when they are tokens too: in
// the table, and twice in a row through a merger's cache of ranks (looked
// up, then remembered).
func TestRankTable(t *testing.T) {
	for _, name := range encodings() {
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(specs[name].file)
		if err != nil {
			t.Fatal(err)
		}
		table := newRankTable(ranks)
		m := new(merger)
		check := func(s string) {
			want, wantOK := ranks[s]
			if got, ok := table.get(s); got != want || ok != wantOK {
				t.Fatalf("%s: get(%q) = %d, %v; want %d, %v", name, s, got, ok, want, wantOK)
			}
			for range 2 {
				if got, ok := m.rank(s, table); got != want || ok != wantOK {
					t.Fatalf("%s: merger's rank(%q) = %d, %v; want %d, %v", name, s, got, ok, want, wantOK)
				}
			}
		}
		check("")
		for tok := range ranks {
			check(tok)
			check(tok[:len(tok)-1])
			check(tok + "x")
			check(tok[:len(tok)-1] + string(tok[len(tok)-1]^1))
		}
	}
}

func TestHead(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi"} {
		var want uint64
		for i := min(len(s), 8) - 1; i >= 0; i-- {
			want = want<<8 | uint64(s[i])
		}
		if got := head(s); got != want {
			t.Errorf("head(%q) = %#x, want %#x", s, got, want)
		}
	}
}
