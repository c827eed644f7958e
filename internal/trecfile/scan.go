package trecfile

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// sepScanner finds the separators of a line of a block from bitmasks of
// the 64 bytes from the line's start: the bytes up to ' ' (every
// whitespace byte, and the other control bytes), the blanks and the
// newlines. A line of up to 63 bytes and its newline costs one set of masks
// and a few instructions a field, with no branch on where a field ends or
// on what separates it. It serves lineParser.split and the readers' usual
// lines.
type sepScanner struct {
	data []byte
}

// window returns the bytes up to ' ' of data[from:from+64] as a bitmask,
// bit i for data[from+i].
func (s *sepScanner) window(from int) uint64 {
	if from+64 <= len(s.data) {
		low, _, _ := masks64(&s.data[from])
		return low
	}
	return s.tail(from)
}

// tail is window near the end of the data, where fewer than 64 bytes are
// left: the window is padded with bytes that are not candidates.
func (s *sepScanner) tail(from int) uint64 {
	var pad [64]byte
	copy(pad[copy(pad[:], s.data[from:]):], padding[:])
	low, _, _ := masksSWAR(&pad[0])
	return low
}

// masksSWAR returns masks64's three masks of the 64 bytes at p, eight bytes
// at a time in ordinary registers.
func masksSWAR(p *byte) (low, blank, newline uint64) {
	b := unsafe.Slice(p, 64)
	for i := 0; i < 64; i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		low |= byteBits(lowBytes(w)) << i
		blank |= byteBits(zeroBytes(w^' '*ones)|zeroBytes(w^'\t'*ones)) << i
		newline |= byteBits(zeroBytes(w^'\n'*ones)) << i
	}
	return low, blank, newline
}

// padding fills the window past the end of a block with bytes that are not
// candidates.
var padding = [64]byte{'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x',
	'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x',
	'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x',
	'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x'}

// lowBytes returns w with the high bit of each byte up to ' ' (0x20) set,
// and no other bit.
func lowBytes(w uint64) uint64 {
	above := w&low7 + (0x80-0x21)*ones // high bit set where the low seven bits are at least 0x21
	return ^(above | w) & highs
}

// byteBits gathers the high bits of the bytes of m, which has no other bit
// set, into bit i for byte i.
func byteBits(m uint64) uint64 {
	return (m >> 7) * 0x0102040810204080 >> 56
}

// seps finds the separators of the line that starts at offset start of
// s.data when it has the usual shape: k fields, each but the last followed
// by a single space or tab, the last by a newline, and no other byte up to
// ' '. It stores their offsets in pos[:k] and reports whether the line has
// that shape; if not, the caller must split the line another way.
func (s *sepScanner) seps(start, k int, pos *[maxFields]int) bool {
	if start+64 <= len(s.data) {
		if low, blank, newline := masks64(&s.data[start]); newline != 0 {
			return usualLine(start, k, low, blank, newline, pos)
		}
	}
	return s.scan(start, k, pos)
}

// usualSeps returns the separators of the line at the start of a 64-byte
// window, as a bitmask, and its newline's bit, given the window's masks,
// when the line has the usual shape of k fields: no byte up to ' ' but the
// blanks, k-1 of them, none at the start or beside another or the
// newline. end is 0 when it has not, or when its newline is not in the
// window.
func usualSeps(low, blank, newline uint64, k int) (seps, end uint64) {
	end = newline & -newline
	line := end - 1 // the bytes before it
	seps = blank & line
	ends := seps | end
	if low&line != seps || bits.OnesCount64(seps) != k-1 || ends&(ends<<1|1) != 0 {
		return 0, 0
	}
	return seps, end
}

// usualLine is seps for a line whose newline is among the 64 bytes from
// its start, given their masks.
func usualLine(start, k int, low, blank, newline uint64, pos *[maxFields]int) bool {
	seps, end := usualSeps(low, blank, newline, k)
	if end == 0 {
		return false
	}
	for i := range pos[:k-1] {
		pos[i] = start + bits.TrailingZeros64(seps)
		seps &= seps - 1
	}
	pos[k-1] = start + bits.TrailingZeros64(end)
	return true
}

// scan is seps one separator at a time, for a line that is long or near
// the end of the data.
func (s *sepScanner) scan(start, k int, pos *[maxFields]int) bool {
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
