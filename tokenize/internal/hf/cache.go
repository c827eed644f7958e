package hf

import (
	"sync"
	"sync/atomic"
)

// wordCache remembers the ids of words already encoded, as Hugging Face's
// BPE does: words up to maxCachedWord bytes, until it holds maxCachedWords
// words. It is safe for concurrent use; cached slices are never modified.
type wordCache struct {
	m sync.Map // string -> []int
	n atomic.Int64
}

const (
	maxCachedWords = 1 << 16
	maxCachedWord  = 256
)

func (c *wordCache) get(word string) ([]int, bool) {
	ids, ok := c.m.Load(word)
	if !ok {
		return nil, false
	}
	return ids.([]int), true
}

func (c *wordCache) put(word string, ids []int) {
	if len(word) > maxCachedWord || c.n.Load() >= maxCachedWords {
		return
	}
	if _, loaded := c.m.LoadOrStore(word, ids); !loaded {
		c.n.Add(1)
	}
}
