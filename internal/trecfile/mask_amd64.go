package trecfile

import "golang.org/x/sys/cpu"

// masks64 returns three bitmasks of the 64 bytes at p, bit i for p[i]: the
// bytes up to ' ' (0x20), the blanks (' ' and '\t') and the newlines; with
// AVX2, in 32-byte vectors.
var masks64 = masksSWAR

func init() {
	if cpu.X86.HasAVX2 {
		masks64 = masksAVX2
	}
}

// masksAVX2 is masksSWAR in 32-byte vectors.
//
//go:noescape
func masksAVX2(p *byte) (low, blank, newline uint64)
