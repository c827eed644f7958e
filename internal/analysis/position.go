package analysis

import (
	"fmt"
	"slices"
	"strings"
)

// Placement is where one relevant passage sits in a packed context.
type Placement struct {
	Query  string
	Item   string
	Rank   int     // 1-based position among the context's items
	Offset float64 // token offset of its start over the context's tokens, in [0, 1)
	Bucket string  // begin, middle or end: the thirds of the context's tokens
}

// Buckets are the thirds of a context a passage can start in.
var Buckets = []string{"begin", "middle", "end"}

// Positions places the relevant passages of one context: tokens are the
// passages' token counts in context order.
func Positions(query string, ps []Passage) []Placement {
	total := 0
	for _, p := range ps {
		total += p.Tokens
	}
	var out []Placement
	at := 0
	for i, p := range ps {
		if p.Relevant && total > 0 {
			off := float64(at) / float64(total)
			out = append(out, Placement{Query: query, Item: p.ID, Rank: i + 1, Offset: off, Bucket: Buckets[min(int(off*3), 2)]})
		}
		at += p.Tokens
	}
	return out
}

// PositionEffect relates where evidence sat to answer correctness: per
// bucket, the relevant passages placed there and the share of their
// queries answered correctly.
type PositionEffect struct {
	Bucket   string
	Passages int
	Queries  int     // queries with graded answers that had evidence here
	Correct  float64 // share of those answered correctly
}

// Effects tallies placements against each query's answer correctness
// (correct[query]; a query missing from it has no graded answer).
func Effects(ps []Placement, correct map[string]bool) []PositionEffect {
	out := make([]PositionEffect, len(Buckets))
	seen := make([]map[string]bool, len(Buckets))
	right := make([]int, len(Buckets))
	for i, b := range Buckets {
		out[i].Bucket = b
		seen[i] = map[string]bool{}
	}
	for _, p := range ps {
		i := slices.Index(Buckets, p.Bucket)
		if i < 0 {
			continue
		}
		out[i].Passages++
		ok, graded := correct[p.Query]
		if !graded || seen[i][p.Query] {
			continue
		}
		seen[i][p.Query] = true
		out[i].Queries++
		if ok {
			right[i]++
		}
	}
	for i := range out {
		if out[i].Queries > 0 {
			out[i].Correct = float64(right[i]) / float64(out[i].Queries)
		}
	}
	return out
}

// Cost prices tokens: Input and Output are prices per million tokens.
type Cost struct {
	Input, Output float64
}

// Of is the price of one request.
func (c Cost) Of(inputTokens, outputTokens int) float64 {
	return (float64(inputTokens)*c.Input + float64(outputTokens)*c.Output) / 1e6
}

// String states the prices.
func (c Cost) String() string {
	return strings.TrimSpace(fmt.Sprintf("%g USD per 1M input tokens, %g USD per 1M output tokens", c.Input, c.Output))
}
