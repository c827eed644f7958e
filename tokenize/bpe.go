package tokenize

import (
	"math"
	"strings"
)

// merger byte-pair encodes pieces with tiktoken's algorithm; it keeps its
// buffers between pieces, and the token counts of the last pieces counted.
type merger struct {
	starts []int // token boundaries, as byte offsets into the piece
	ranks  []int // ranks[i]: rank of merging tokens i and i+1
	bounds []int
	counts map[string]int // piece -> tokens, at most maxCounts pieces
}

// maxCounts bounds a merger's memory of counts: words recur, so a few
// thousand spare most merges of a text.
const maxCounts = 4096

// count returns the number of tokens of piece, len(merge(piece)) - 1.
func (m *merger) count(piece string, ranks *rankTable) int {
	if n, ok := m.counts[piece]; ok {
		return n
	}
	n := len(m.merge(piece, ranks)) - 1
	if m.counts == nil || len(m.counts) == maxCounts {
		m.counts = make(map[string]int, maxCounts)
	}
	m.counts[strings.Clone(piece)] = n
	return n
}

const noRank = math.MaxInt

// merge returns the token boundaries of piece: starting from single bytes,
// it repeatedly merges the adjacent pair whose concatenation has the lowest
// rank (the leftmost of equal ranks) until no pair is in ranks.
func (m *merger) merge(piece string, ranks *rankTable) []int {
	m.starts, m.ranks = m.starts[:0], m.ranks[:0]
	for i := 0; i <= len(piece); i++ {
		m.starts = append(m.starts, i)
	}
	rankOf := func(i int) int { // rank of merging tokens i and i+1
		if i+2 >= len(m.starts) {
			return noRank
		}
		if r, ok := ranks.get(piece[m.starts[i]:m.starts[i+2]]); ok {
			return r
		}
		return noRank
	}
	for i := range len(m.starts) - 1 {
		m.ranks = append(m.ranks, rankOf(i))
	}
	for {
		best, at := noRank, -1
		for i, r := range m.ranks {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		m.starts = append(m.starts[:at+1], m.starts[at+2:]...)
		m.ranks = append(m.ranks[:at+1], m.ranks[at+2:]...)
		m.ranks[at] = rankOf(at)
		if at > 0 {
			m.ranks[at-1] = rankOf(at - 1)
		}
	}
	m.bounds = append(m.bounds[:0], m.starts...)
	return m.bounds
}
