//go:build long

package longtest

// Enabled reports whether the tests were built with -tags long.
const Enabled = true
