// Package synth makes the deterministic text the benchmark generators
// write: passages of a given size drawn from a small vocabulary.
package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

var words = strings.Fields(`the refund policy allows returns within thirty days of delivery for most
items clearance products are final sale gift cards cannot be refunded shipping takes three to five
business days tenant limits apply per key and burst traffic is throttled the api returns errors when
quotas are exceeded contact support for exceptions invoices are issued monthly payments by card`)

// Passage is text of n bytes drawn from r.
func Passage(r *rand.Rand, n int) string {
	return fill(n, func(b *strings.Builder) { b.WriteString(words[r.IntN(len(words))]) })
}

// NumberedPassage is text of n bytes whose words carry numbers, so that a
// passage's opening does not recur by chance in another passage.
func NumberedPassage(r *rand.Rand, n int) string {
	return fill(n, func(b *strings.Builder) { fmt.Fprintf(b, "%s%d", words[r.IntN(len(words))], r.IntN(1000)) })
}

func fill(n int, word func(*strings.Builder)) string {
	var b strings.Builder
	for b.Len() < n {
		word(&b)
		b.WriteByte(' ')
	}
	return b.String()[:n]
}
