package trecfile

import "golang.org/x/sys/cpu"

// lowMask64 returns one bit per byte of the 64 bytes at p (bit i for p[i]),
// set for the bytes up to ' ' (0x20): with AVX2, two 32-byte compares.
var lowMask64 = lowMaskSWAR

func init() {
	if cpu.X86.HasAVX2 {
		lowMask64 = lowMaskAVX2
	}
}

// lowMaskAVX2 is lowMaskSWAR in 32-byte vectors.
//
//go:noescape
func lowMaskAVX2(p *byte) uint64
