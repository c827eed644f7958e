//go:build !amd64

package trecfile

// lowMask64 returns one bit per byte of the 64 bytes at p (bit i for p[i]),
// set for the bytes up to ' ' (0x20).
var lowMask64 = lowMaskSWAR
