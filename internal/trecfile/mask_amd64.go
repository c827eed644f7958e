package trecfile

import "golang.org/x/sys/cpu"

// hasAVX2 chooses lowMask's vector form.
var hasAVX2 = cpu.X86.HasAVX2

// lowMask returns one bit per byte of the 64 bytes of b (bit i for b[i]),
// set for the bytes up to ' ' (0x20): with AVX2, two 32-byte compares.
func lowMask(b []byte) uint64 {
	if hasAVX2 {
		return lowMaskAVX2(&b[:64][0])
	}
	return lowMaskSWAR(b)
}

// lowMaskAVX2 is lowMask of the 64 bytes at p.
//
//go:noescape
func lowMaskAVX2(p *byte) uint64
