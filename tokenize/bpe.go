package tokenize

import (
	"math"
	"math/bits"
	"strings"
)

// merger byte-pair encodes pieces with tiktoken's algorithm; it keeps its
// buffers between pieces, and the token counts of the last pieces counted.
type merger struct {
	starts []int // token boundaries, as byte offsets into the piece
	ranks  []int // ranks[i]: rank of merging tokens i and i+1
	bounds []int
	counts map[string]int // piece -> tokens, at most maxCounts pieces
	hot    *[hotSlots]hotSlot
}

// hotSlots is the size of a merger's cache of ranks: a few thousand
// pieces (a text's words, mostly) are most of the lookups, and the rank
// table, megabytes, is far from the processor's caches.
const hotSlots = 4096

// hotSlot remembers the rank of a piece of 1 to 16 bytes: its first and
// last 8 bytes (overlapping, or zero-padded when shorter) and its length
// say exactly which piece it is; rank is -1 for a piece that is no token.
type hotSlot struct {
	first, last uint64
	n, rank     int32
}

// rank is ranks.get(s), from the merger's cache when s was looked up
// lately.
func (m *merger) rank(s string, ranks *rankTable) (int, bool) {
	n := len(s)
	if n > 16 || n == 0 {
		return ranks.get(s)
	}
	first, last := head(s), uint64(0)
	if n > 8 {
		last = le64(s[n-8:])
	}
	if m.hot == nil {
		m.hot = new([hotSlots]hotSlot)
	}
	h := (first ^ bits.RotateLeft64(last, 31) ^ uint64(n)<<59) * 0x9e3779b97f4a7c15
	sl := &m.hot[h>>(64-hotBits)]
	if sl.n == int32(n) && sl.first == first && sl.last == last {
		if sl.rank < 0 {
			return 0, false
		}
		return int(sl.rank), true
	}
	r, ok := ranks.get(s)
	*sl = hotSlot{first: first, last: last, n: int32(n), rank: -1}
	if ok {
		sl.rank = int32(r)
	}
	return r, ok
}

const hotBits = 12 // log2(hotSlots)

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
		if r, ok := m.rank(piece[m.starts[i]:m.starts[i+2]], ranks); ok {
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
