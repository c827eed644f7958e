// Package hashindex is an open-addressing index from strings to their
// positions in a slice the caller owns. It exists for the hot loops of
// evaluation (an item's judgment, a repeated item in a ranked list), where
// it is several times faster and smaller than a map[string]int: a slot is
// one uint64 holding 32 bits of the key's hash and the position.
package hashindex

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// seed is drawn once per process, so that no input can be crafted to make
// its ids collide.
var seed = rand.Uint64()

// Keys is the caller's sequence of keys, read by position.
type Keys interface {
	Key(i int) string
}

// Strings adapts a []string to Keys.
type Strings []string

// Key returns s[i].
func (s Strings) Key(i int) string { return s[i] }

// Index maps keys.Key(i) to i for the Keys passed to every call; the caller
// must pass the same sequence (or a longer one with the same prefix).
type Index struct {
	slots []uint64 // 0 = empty; else hash>>32<<32 | position+1
	mask  uint64
}

// Reset empties the index and sizes it for n keys.
func (x *Index) Reset(n int) {
	// At most a third full, so that few probes go past the first slot,
	// while the table is small enough to stay in a core's cache; beyond,
	// two thirds, so that a huge list costs less memory.
	room := 3 * n
	if n > 1<<16 {
		room = n + n/2
	}
	size := 1 << bits.Len(uint(room))
	if cap(x.slots) >= size {
		x.slots = x.slots[:size]
		clear(x.slots)
	} else {
		x.slots = make([]uint64, size)
	}
	x.mask = uint64(size - 1)
}

// Hash returns key's hash for this process; it is the one Index uses.
func Hash(key string) uint64 { return hash(key) }

// hash is wyhash (the function Go's runtime hashes strings with where the
// processor lacks AES instructions), seeded per process: a few
// multiplications for an id of a few dozen bytes, inlined into the
// loops that call it, where hash/maphash costs a chain of calls.
func hash(key string) uint64 {
	b := unsafe.Slice(unsafe.StringData(key), len(key))
	n := len(b)
	h := seed ^ mix(seed^wy0, uint64(n)^wy1)
	for len(b) > 16 {
		h = mix(le.Uint64(b)^wy1, le.Uint64(b[8:])^h)
		b = b[16:]
	}
	var x, y uint64
	switch m := len(b); {
	case m >= 8:
		x, y = le.Uint64(b), le.Uint64(b[m-8:])
	case m >= 4:
		x, y = uint64(le.Uint32(b)), uint64(le.Uint32(b[m-4:]))
	case m > 0:
		x = uint64(b[0])<<16 | uint64(b[m>>1])<<8 | uint64(b[m-1])
	}
	return mix(wy1^uint64(n), mix(x^wy1, y^h))
}

// wyhash's constants.
const (
	wy0 = 0xa0761d6478bd642f
	wy1 = 0xe7037ed1a0b428db
)

var le = binary.LittleEndian

// mix folds the 128-bit product of a and b to 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// Find returns the position of key in keys, or -1.
func (x *Index) Find(keys Keys, key string) int {
	if len(x.slots) == 0 {
		return -1
	}
	h := hash(key)
	tag := h &^ 0xffffffff
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		s := x.slots[i]
		if s == 0 {
			return -1
		}
		if s&^0xffffffff == tag {
			if p := int(s&0xffffffff) - 1; keys.Key(p) == key {
				return p
			}
		}
	}
}

// AddHashed indexes keys.Key(p), whose Hash is h. If an equal key is
// already indexed it returns that key's position and leaves the index
// unchanged; otherwise it returns p. The index must have been Reset for at
// least as many keys as are added.
func (x *Index) AddHashed(keys Keys, p int, h uint64) int {
	tag := h &^ 0xffffffff
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		s := x.slots[i]
		if s == 0 {
			x.slots[i] = tag | uint64(p+1)
			return p
		}
		if s&^0xffffffff == tag { // the keys are read only where the hashes agree
			if q := int(s&0xffffffff) - 1; keys.Key(q) == keys.Key(p) {
				return q
			}
		}
	}
}

// TryAdd indexes position p, whose key's Hash is h, where its first slot
// is empty, and reports whether it did; where it did not, AddHashed adds
// it or finds its equal. It is the usual case of a table at most a third
// full, and small enough to cost no call.
func (x *Index) TryAdd(h uint64, p int) bool {
	s := &x.slots[h&x.mask]
	if *s != 0 {
		return false
	}
	*s = h&^0xffffffff | uint64(p+1)
	return true
}
