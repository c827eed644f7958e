// Package gather holds a record read in pieces until it is whole.
package gather

// Pieces holds the pieces of one record (a long line, a file read whole)
// as they are read, each a copy, and joins them once all are in. Until
// then it holds no more than the bytes given to it, where growing one
// slice by append would hold up to 2.25 times as much while it copies: a
// record refused at a limit costs the limit, not twice it.
type Pieces struct {
	parts [][]byte
	n     int
}

// Add copies p in.
func (g *Pieces) Add(p []byte) {
	if len(p) > 0 {
		g.parts = append(g.parts, append([]byte(nil), p...))
		g.n += len(p)
	}
}

// Len is the number of bytes held.
func (g *Pieces) Len() int { return g.n }

// Join appends the pieces and then tail to dst[:0], in one allocation
// where dst is too small, and empties g.
func (g *Pieces) Join(dst, tail []byte) []byte {
	n := g.n + len(tail)
	if cap(dst) < n {
		dst = make([]byte, 0, n)
	}
	dst = dst[:0]
	for i, p := range g.parts {
		dst = append(dst, p...)
		g.parts[i] = nil // collectable once copied
	}
	*g = Pieces{}
	return append(dst, tail...)
}
