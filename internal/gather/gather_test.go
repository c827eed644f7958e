package gather

import (
	"bytes"
	"testing"
)

func TestGather(t *testing.T) {
	for _, c := range []struct {
		name   string
		pieces []string
		tail   string
		dst    []byte
	}{
		{"nothing", nil, "", nil},
		{"a tail only", nil, "xyz\n", make([]byte, 0, 64)},
		{"pieces and a tail", []string{"ab", "", "cd"}, "e\n", nil},
		{"into a buffer large enough", []string{"ab", "cd"}, "", make([]byte, 3, 16)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var g Pieces
			want := ""
			for _, p := range c.pieces {
				buf := []byte(p)
				g.Add(buf)
				clear(buf) // Add keeps a copy
				want += p
			}
			if g.Len() != len(want) {
				t.Errorf("Len = %d, want %d", g.Len(), len(want))
			}
			got := g.Join(c.dst, []byte(c.tail))
			if string(got) != want+c.tail {
				t.Errorf("Join = %q, want %q", got, want+c.tail)
			}
			if cap(c.dst) >= len(got) && len(got) > 0 && &got[0] != &c.dst[:1][0] {
				t.Error("a buffer large enough was not reused")
			}
			if g.Len() != 0 || !bytes.Equal(g.Join(nil, nil), nil) {
				t.Error("Join did not empty the Pieces")
			}
		})
	}
}
