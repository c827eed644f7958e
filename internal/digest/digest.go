// Package digest computes sha256 digests of values written unambiguously,
// which partial results record so that a merge refuses a changed part.
package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
)

// Digest is a sha256 of values written unambiguously: every string and
// list with its length first.
type Digest struct{ h hash.Hash }

// New starts a digest.
func New() *Digest { return &Digest{sha256.New()} }

// Sum is the digest in hexadecimal.
func (d *Digest) Sum() string { return hex.EncodeToString(d.h.Sum(nil)) }

// Int adds n.
func (d *Digest) Int(n int) { d.h.Write(binary.BigEndian.AppendUint64(nil, uint64(n))) }

// Str adds s.
func (d *Digest) Str(s string) {
	d.Int(len(s))
	d.h.Write([]byte(s))
}

// Strs adds a list of strings.
func (d *Digest) Strs(ss []string) {
	d.Int(len(ss))
	for _, s := range ss {
		d.Str(s)
	}
}

// Bool adds b.
func (d *Digest) Bool(b bool) {
	if b {
		d.Int(1)
	} else {
		d.Int(0)
	}
}

// Floats adds a list of numbers, each as its bits; every NaN (an undefined value, null in
// JSON) alike.
func (d *Digest) Floats(vs []float64) {
	d.Int(len(vs))
	for _, v := range vs {
		bits := math.Float64bits(v)
		if math.IsNaN(v) {
			bits = math.Float64bits(math.NaN())
		}
		d.h.Write(binary.BigEndian.AppendUint64(nil, bits))
	}
}
