package tokenize

import (
	"strings"
	"testing"
)

// FuzzCountPacked checks CountPacked against counting the text and each
// part on its own, for texts that pack the parts with headers and
// separators around them, and for parts the text does not hold.
func FuzzCountPacked(f *testing.F) {
	f.Add("Refunds are issued within thirty days; gift cards can't be returned.", "We'll ship it.\n\nOK", "[p1] ", "\n\n", uint8(0))
	f.Add("don't stop   the 123456 numbers  ", "ÉCOLE Ǆǅ ẊẊ ȸȸ ZZZZZZZZZZ", "", " ", uint8(1))
	f.Add("a b c d e f g h i j k l m n o p'll", "x/y/z \r\n\t tail'S", "\n", "'", uint8(2))
	f.Fuzz(func(t *testing.T, a, b, header, sep string, how uint8) {
		parts := []string{a, b, a + b}
		var text strings.Builder
		for i, p := range parts {
			if how&(1<<i) != 0 { // a part the text does not hold as it is
				p = strings.ToUpper(p)
			}
			text.WriteString(header + p + sep)
		}
		for _, name := range []string{"o200k_base", "cl100k_base"} {
			enc, err := newTiktoken(name)
			if err != nil {
				t.Fatal(err)
			}
			counts := make([]int, len(parts))
			got := enc.CountPacked(text.String(), parts, counts)
			if want := enc.count(text.String()); got != want {
				t.Fatalf("%s: %q: packed %d, counted %d", name, text.String(), got, want)
			}
			for i, p := range parts {
				if want := enc.count(p); counts[i] != want {
					t.Fatalf("%s: part %q: packed %d, counted %d", name, p, counts[i], want)
				}
			}
		}
	})
}
