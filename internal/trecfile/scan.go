package trecfile

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// sepScanner finds the separators of a line of a block from a bitmask of
// the bytes up to ' ' (every whitespace byte, and the other control bytes)
// in the 64 bytes from the line's start, so that a line of up to 64 bytes
// costs one mask, a few instructions a field and no branch on where a
// window ends. It serves lineParser.split and the readers' usual lines.
type sepScanner struct {
	data []byte
}

// window returns the candidate bytes of data[from:from+64] as a bitmask,
// bit i for data[from+i].
func (s *sepScanner) window(from int) uint64 {
	if from+64 <= len(s.data) {
		return lowMask64(&s.data[from])
	}
	return s.tail(from)
}

// tail is window near the end of the data, where fewer than 64 bytes are
// left: the window is padded with bytes that are not candidates.
func (s *sepScanner) tail(from int) uint64 {
	var pad [64]byte
	copy(pad[copy(pad[:], s.data[from:]):], padding[:])
	return lowMaskSWAR(&pad[0])
}

// lowMaskSWAR returns one bit per byte of the 64 bytes at p (bit i for
// p[i]), set for the bytes up to ' ' (0x20), eight bytes at a time in
// ordinary registers.
func lowMaskSWAR(p *byte) uint64 {
	b := unsafe.Slice(p, 64)
	return lowBits(binary.LittleEndian.Uint64(b[0:])) |
		lowBits(binary.LittleEndian.Uint64(b[8:]))<<8 |
		lowBits(binary.LittleEndian.Uint64(b[16:]))<<16 |
		lowBits(binary.LittleEndian.Uint64(b[24:]))<<24 |
		lowBits(binary.LittleEndian.Uint64(b[32:]))<<32 |
		lowBits(binary.LittleEndian.Uint64(b[40:]))<<40 |
		lowBits(binary.LittleEndian.Uint64(b[48:]))<<48 |
		lowBits(binary.LittleEndian.Uint64(b[56:]))<<56
}

// padding fills the window past the end of a block with bytes that are not
// candidates.
var padding = [64]byte{'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x',
	'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x',
	'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x',
	'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x'}

// lowBits returns one bit per byte of w (bit i for byte i) set for the
// bytes up to ' ' (0x20).
func lowBits(w uint64) uint64 {
	above := w&low7 + (0x80-0x21)*ones // high bit set where the low seven bits are at least 0x21
	m := ^(above | w) & highs
	return (m >> 7) * 0x0102040810204080 >> 56
}

// seps finds the separators of the line that starts at offset start of
// s.data when it has the usual shape: k fields, each but the last followed
// by a single space or tab, the last by a newline, and no other byte up to
// ' '. It stores their offsets in pos[:k] and reports whether the line has
// that shape; if not, the caller must split the line another way.
func (s *sepScanner) seps(start, k int, pos *[maxFields]int) bool {
	data, base := s.data, start
	mask := s.window(base)
	prev := start - 1
	want := uint8(1) // a space or tab, then a newline after the last field
	for i := range pos[:k] {
		for mask == 0 {
			if base += 64; base >= len(data) {
				return false
			}
			mask = s.window(base)
		}
		j := base + bits.TrailingZeros64(mask)
		mask &= mask - 1
		if i == k-1 {
			want = 2
		}
		if j == prev+1 || sepClass[data[j]] != want {
			return false
		}
		pos[i], prev = j, j
	}
	return true
}

// sepClass classes the bytes up to ' ' for seps: 1 for a space or tab, 2
// for a newline, 0 for the others.
var sepClass = [256]uint8{' ': 1, '\t': 1, '\n': 2}
