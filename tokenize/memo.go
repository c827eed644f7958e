package tokenize

import (
	"hash/maphash"
	"sync"
)

// countMemo remembers the token counts of the long texts an encoding
// counted, so that a passage that recurs in a run (a chunk retrieved for
// many queries, packed into many contexts) is encoded once. Texts are known
// by two independent 64-bit hashes of their bytes: a wrong count would need
// two texts to agree on both, a chance of about one in 2^128 per pair. It
// holds at most 2 × memoEntries counts, in two generations: when the newer
// fills, it becomes the older and the older is dropped, so what is used
// stays.
type countMemo struct {
	mu       sync.Mutex
	seeds    [2]maphash.Seed
	cur, old map[[2]uint64]int
}

const (
	memoMinLen  = 256 // shorter texts are cheaper to count than to remember
	memoEntries = 1 << 15
)

func newCountMemo() *countMemo {
	return &countMemo{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
}

// count returns count(text), remembered when text is long.
func (c *countMemo) count(text string, count func(string) int) int {
	if len(text) < memoMinLen {
		return count(text)
	}
	key := [2]uint64{maphash.String(c.seeds[0], text), maphash.String(c.seeds[1], text)}
	c.mu.Lock()
	n, ok := c.cur[key]
	if !ok {
		if n, ok = c.old[key]; ok {
			c.put(key, n)
		}
	}
	c.mu.Unlock()
	if ok {
		return n
	}
	n = count(text)
	c.mu.Lock()
	c.put(key, n)
	c.mu.Unlock()
	return n
}

func (c *countMemo) put(key [2]uint64, n int) {
	if len(c.cur) == memoEntries {
		c.old, c.cur = c.cur, nil
	}
	if c.cur == nil {
		c.cur = make(map[[2]uint64]int, memoEntries)
	}
	c.cur[key] = n
}
