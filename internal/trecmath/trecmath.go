// Package trecmath holds the pieces of trec_eval's arithmetic that package
// metric and package treceval both compute, written once so that both print
// the same bytes.
package trecmath

// InfAPEpsilon keeps infAP's estimate defined with nothing judged above.
const InfAPEpsilon = 0.00001

// InfAPTerm is what the relevant item at 0-based rank j adds to inferred
// AP's sum, with rel relevant items (itself included), nonrel judged
// non-relevant ones and sampledOut pooled but unjudged ones at or above
// it: 1 at rank 0, else 1/(j+1) + (j/(j+1)) * (pooled above / j) *
// ((rel-1 + e) / (rel-1 + nonrel + 2e)).
func InfAPTerm(j, rel, nonrel, sampledOut int) float64 {
	if j == 0 {
		return 1.0
	}
	fj := float64(j)
	above := float64(rel - 1 + nonrel + sampledOut)
	return 1.0/(fj+1.0) + float64(float64(float64(fj/(fj+1.0))*(above/fj))*
		((float64(rel-1)+InfAPEpsilon)/(float64(rel-1+nonrel)+2*InfAPEpsilon)))
}

// SetF is trec_eval's set_F of hits relevant items among n returned and r
// relevant: (x+1)PR/(xP+R), 0 when hits is 0.
func SetF(hits, n, r int, x float64) float64 {
	if hits == 0 {
		return 0
	}
	prec, rec := float64(hits)/float64(n), float64(hits)/float64(r)
	return float64(float64((x+1.0)*prec)*rec) / (float64(x*prec) + rec)
}
