//go:build !amd64

package trecfile

// lowMask returns one bit per byte of the 64 bytes of b (bit i for b[i]),
// set for the bytes up to ' ' (0x20).
func lowMask(b []byte) uint64 { return lowMaskSWAR(b) }
