//go:build !amd64

package trecfile

// masks64 returns three bitmasks of the 64 bytes at p, bit i for p[i]: the
// bytes up to ' ' (0x20), the blanks (' ' and '\t') and the newlines.
var masks64 = masksSWAR
