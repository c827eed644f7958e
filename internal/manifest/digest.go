package manifest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"

	"github.com/ragstat/ragstat/eval"
)

// ResultsDigest is the sha256 of what a partial result holds of each
// result's queries, as its JSON records them: each run's name, its rows in
// order (query, values, missing from the run, unjudged and folded counts),
// its excluded and ignored queries and its counts. A shard's partial result
// records it (Shard.Values), so that a merge refuses a part whose values or
// queries were changed after it was written.
func ResultsDigest(results []*eval.Result) string {
	d := NewDigest()
	d.Int(len(results))
	for _, r := range results {
		d.Str(r.Name)
		d.Int(len(r.Rows))
		for _, row := range r.Rows {
			d.Str(row.Query)
			d.Floats(row.Values)
			d.Floats(row.High)
			d.Bool(row.Missing)
			d.Int(row.Unjudged)
			d.Int(row.Folded)
		}
		d.Strs(r.Excluded)
		d.Strs(r.Ignored)
		d.Int(r.Unjudged)
		d.Int(r.Folded)
	}
	return d.Sum()
}

// Digest is a sha256 of values written unambiguously: every string and
// list with its length first.
type Digest struct{ h hash.Hash }

// NewDigest starts a digest.
func NewDigest() *Digest { return &Digest{sha256.New()} }

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
