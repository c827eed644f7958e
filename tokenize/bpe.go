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

// maxCounted is the longest piece whose count a merger remembers: longer
// pieces rarely recur, and remembering one would keep a copy of it.
const maxCounted = 256

// count returns the number of tokens of piece, len(merge(piece)) - 1.
func (m *merger) count(piece string, ranks *rankTable) int {
	if n, ok := m.counts[piece]; ok {
		return n
	}
	n := len(m.merge(piece, ranks)) - 1
	if len(piece) > maxCounted {
		return n
	}
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
	if len(piece) > maxScanned {
		return m.mergeLong(piece, ranks)
	}
	return m.mergeScan(piece, ranks)
}

// mergeScan is merge finding each merge by a scan of all pairs.
func (m *merger) mergeScan(piece string, ranks *rankTable) []int {
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

// maxScanned is the longest piece merge finds each merge by scanning all
// pairs, O(n²) for n bytes but fastest for the short pieces of most text;
// longer pieces (a run of one character, a base64 blob) go to mergeLong.
const maxScanned = 128

// mergeLong is merge for long pieces: the same merges in the same order
// (lowest rank, then leftmost), the pending pairs kept in a pairQueue, so a
// piece of n bytes takes O(n log n) time at worst and about 24n bytes of
// memory. Tokens are a linked list of byte offsets; a queued pair is its
// rank and its left token's start, and one whose rank is no longer that of
// the pair at its start is stale (the pair's span changed: one rank is one
// byte string) and is skipped.
func (m *merger) mergeLong(piece string, ranks *rankTable) []int {
	if len(piece) <= math.MaxInt32 {
		return mergeLong[int32](m, piece, ranks)
	}
	return mergeLong[int](m, piece, ranks)
}

func mergeLong[T int32 | int](m *merger, piece string, ranks *rankTable) []int {
	n := T(len(piece))
	next := make([]T, n+1) // next[s]: end of the token at s; -1 once s is no start
	prev := make([]T, n+1) // prev[s]: start of the token before s
	for i := range next {
		next[i], prev[i] = T(i+1), T(i-1)
	}
	var q pairQueue[T]
	push := func(s T) {
		if mid := next[s]; mid < n {
			if r, ok := m.rank(piece[s:next[mid]], ranks); ok {
				q.push(r, s)
			}
		}
	}
	for s := T(0); s+1 < n; s++ {
		push(s)
	}
	for {
		r, s, ok := q.pop()
		if !ok {
			break
		}
		mid := next[s]
		if mid < 0 || mid >= n {
			continue
		}
		end := next[mid]
		if cur, ok := m.rank(piece[s:end], ranks); !ok || cur != r {
			continue
		}
		next[s], next[mid], prev[end] = end, -1, s
		if p := prev[s]; p >= 0 {
			push(p) // before s: a bucket stays in increasing order
		}
		push(s)
	}
	m.bounds = m.bounds[:0]
	for s := T(0); s < n; s = next[s] {
		m.bounds = append(m.bounds, int(s))
	}
	m.bounds = append(m.bounds, int(n))
	return m.bounds
}

// pairQueue holds mergeLong's pending pairs and gives them lowest rank
// first, leftmost first among equal ranks. The pairs of one rank are a
// bucket. mergeLong queues a rank's pairs mostly left to right, so a bucket
// is a list in increasing position read from its head, and a heap holds
// the few queued out of order; a heap of the ranks that have a bucket
// finds the lowest. A run of one character, millions of pairs of a few
// ranks, then costs appends and reads of lists rather than a heap
// operation per pair.
type pairQueue[T int32 | int] struct {
	buckets map[int]*pairBucket[T]
	ranks   pairHeap // the ranks of the buckets
	last    *pairBucket[T]
	lastR   int
	spare   []*pairBucket[T]
}

type pairBucket[T int32 | int] struct {
	sorted []T // increasing, read from head
	head   int
	late   pairHeap // positions queued below sorted's last
}

func (q *pairQueue[T]) bucket(rank int) *pairBucket[T] {
	if q.last != nil && q.lastR == rank {
		return q.last
	}
	b := q.buckets[rank]
	if b != nil {
		q.last, q.lastR = b, rank
	}
	return b
}

func (q *pairQueue[T]) push(rank int, pos T) {
	b := q.bucket(rank)
	if b == nil {
		if k := len(q.spare); k > 0 {
			b, q.spare = q.spare[k-1], q.spare[:k-1]
		} else {
			b = new(pairBucket[T])
		}
		if q.buckets == nil {
			q.buckets = make(map[int]*pairBucket[T])
		}
		q.buckets[rank] = b
		q.ranks.push(uint64(rank))
		q.last, q.lastR = b, rank
	}
	if k := len(b.sorted); k == b.head || pos >= b.sorted[k-1] {
		b.sorted = append(b.sorted, pos)
	} else {
		b.late.push(uint64(pos))
	}
}

// pop returns the lowest rank's leftmost pair; ok is false when none is
// left.
func (q *pairQueue[T]) pop() (rank int, pos T, ok bool) {
	if len(q.ranks) == 0 {
		return 0, 0, false
	}
	rank = int(q.ranks[0])
	b := q.bucket(rank)
	if b.head < len(b.sorted) && (len(b.late) == 0 || uint64(b.sorted[b.head]) <= b.late[0]) {
		pos = b.sorted[b.head]
		b.head++
	} else {
		pos = T(b.late.pop())
	}
	if b.head == len(b.sorted) && len(b.late) == 0 {
		b.sorted, b.head = b.sorted[:0], 0
		delete(q.buckets, rank)
		q.ranks.pop()
		q.spare = append(q.spare, b)
		q.last = nil
	}
	return rank, pos, true
}

// pairHeap is a 4-ary min-heap: half the levels of a binary heap, and a
// node's children share a cache line.
type pairHeap []uint64

func (h pairHeap) init() {
	for i := (len(h) - 2) / 4; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(e uint64) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 4
		if s[parent] <= s[i] {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *pairHeap) pop() uint64 {
	s := *h
	top, last := s[0], len(s)-1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

func (h pairHeap) down(i int) {
	for {
		first := 4*i + 1
		if first >= len(h) {
			return
		}
		least := first
		for c := first + 1; c < min(first+4, len(h)); c++ {
			if h[c] < h[least] {
				least = c
			}
		}
		if h[i] <= h[least] {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}
