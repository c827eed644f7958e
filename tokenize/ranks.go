package tokenize

import "math/bits"

// rankTable maps the byte strings of an encoding's tokens to their ranks.
// It answers the byte-pair encoder's many lookups faster than a Go map of
// strings: a token's first 8 bytes are stored in its slot and compared as
// one word, and the slots are probed in a line from a multiplicative hash.
type rankTable struct {
	slots []rankSlot // a power of two, at most 40% full
	shift uint       // 64 - log2(len(slots))
	tails string     // bytes 8 on of the tokens longer than 8 bytes
}

// rankSlot is one token: its first 8 bytes, little-endian and
// zero-padded, and in meta its rank + 1 (0: empty slot) in bits 0-31, its
// length in bits 32-39 and the offset of its tail in tails in bits 40-63.
type rankSlot struct {
	head uint64
	meta uint64
}

// newRankTable builds the table of ranks; every token is 1 to 255 bytes
// long, and their tails take under 16 MiB, as in every tiktoken encoding.
func newRankTable(ranks map[string]int) *rankTable {
	size := 1
	for size*2 < len(ranks)*5 {
		size *= 2
	}
	t := &rankTable{slots: make([]rankSlot, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
	tails := make([]byte, 0)
	for tok, rank := range ranks {
		meta := uint64(rank+1) | uint64(len(tok))<<32
		if len(tok) > 8 {
			meta |= uint64(len(tails)) << 40
			tails = append(tails, tok[8:]...)
		}
		i := t.index(tok, head(tok))
		for t.slots[i].meta != 0 {
			i = (i + 1) & (len(t.slots) - 1)
		}
		t.slots[i] = rankSlot{head: head(tok), meta: meta}
	}
	t.tails = string(tails)
	return t
}

// get returns the rank of token s.
func (t *rankTable) get(s string) (int, bool) {
	h := head(s)
	for i := t.index(s, h); ; i = (i + 1) & (len(t.slots) - 1) {
		sl := &t.slots[i]
		if sl.meta == 0 {
			return 0, false
		}
		if sl.head != h || int(sl.meta>>32&0xff) != len(s) {
			continue
		}
		if len(s) > 8 {
			off := int(sl.meta >> 40)
			if t.tails[off:off+len(s)-8] != s[8:] {
				continue
			}
		}
		return int(uint32(sl.meta)) - 1, true
	}
}

// index is the slot where probing for s, whose head is h, starts.
func (t *rankTable) index(s string, h uint64) int {
	h ^= uint64(len(s)) << 56
	if len(s) > 8 {
		h ^= bits.RotateLeft64(le64(s[len(s)-8:]), 29) * 0x9e3779b97f4a7c15
	}
	h *= 0xd6e8feb86659fd93
	return int((h ^ h>>32) * 0x9e3779b97f4a7c15 >> t.shift)
}

// head is the first 8 bytes of s as a little-endian word, zero-padded.
// A shorter s is read as two overlapping halves, without a loop.
func head(s string) uint64 {
	switch n := len(s); {
	case n >= 8:
		return le64(s)
	case n >= 4:
		return le32(s) | le32(s[n-4:])<<(8*(n-4))
	case n >= 2:
		return le16(s) | le16(s[n-2:])<<(8*(n-2))
	case n == 1:
		return uint64(s[0])
	}
	return 0
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

func le16(s string) uint64 {
	_ = s[1]
	return uint64(s[0]) | uint64(s[1])<<8
}
