package analysis

import (
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strings"
	"unicode"
)

// Passage is one item of a stage or a context, with its text and the
// document it comes from (empty when unknown).
type Passage struct {
	ID       string
	Doc      string
	Text     string
	Tokens   int  // its share of the context, by the generator's tokenizer
	Relevant bool // judged at or above the threshold
}

// Duplicate is a pair of passages whose texts are (nearly) the same.
type Duplicate struct {
	First, Second string  // item ids, First earlier in the list
	Jaccard       float64 // of their word shingles; 1 for exact duplicates
	Exact         bool
}

// Redundancy is how much of a list repeats itself.
type Redundancy struct {
	Shingle    int     // words per shingle
	Threshold  float64 // Jaccard at or above which two passages are near duplicates
	Duplicates []Duplicate
	// RepeatTokens is the tokens spent on passages that repeat an earlier
	// one; RepeatShare their share of all passage tokens.
	RepeatTokens int
	RepeatShare  float64
	// UniqueRelevant counts the relevant passages that repeat no earlier
	// relevant passage: ten copies of one passage are one piece of evidence.
	UniqueRelevant int
	// DocShare is each document's share of the passage tokens, in the
	// order documents first appear.
	DocShare []Share
}

// Share is one document's share of a window.
type Share struct {
	Doc   string  `json:"doc"`
	Share float64 `json:"share"`
}

// Redundant finds exact and near-duplicate passages in one list by the
// Jaccard similarity of their word shingles (shingle words each, case and
// punctuation ignored); pairs at or above threshold are near duplicates. A
// passage without words (its text unknown) duplicates nothing. Only pairs
// sharing a shingle are compared, through an index of the shingles seen:
// the work grows with the overlap in the list, not with its length squared.
func Redundant(ps []Passage, shingle int, threshold float64) (Redundancy, error) {
	if shingle < 1 || threshold <= 0 || threshold > 1 {
		return Redundancy{}, fmt.Errorf("analysis: shingles of %d words at Jaccard %g: give 1 or more words and a threshold in (0, 1]", shingle, threshold)
	}
	r := Redundancy{Shingle: shingle, Threshold: threshold}
	sets := make([]map[uint64]struct{}, len(ps))
	norm := make([]string, len(ps))
	postings := map[uint64][]int{} // shingle -> the earlier passages holding it
	total := 0
	repeats := make([]bool, len(ps))
	relevantRepeat := make([]bool, len(ps))
	shared := map[int]int{} // earlier passage -> shingles shared with this one
	var near []int
	for j, p := range ps {
		words := strings.FieldsFunc(strings.ToLower(p.Text), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsNumber(c) })
		norm[j] = strings.Join(words, " ")
		sets[j] = shingles(words, shingle)
		total += p.Tokens
		clear(shared)
		for h := range sets[j] {
			for _, i := range postings[h] {
				shared[i]++
			}
			postings[h] = append(postings[h], j)
		}
		// Only the pairs that can be duplicates are sorted: equal texts
		// share every shingle, so an exact pair is among those whose
		// Jaccard is 1.
		near = near[:0]
		for i, inter := range shared {
			if float64(inter)/float64(len(sets[i])+len(sets[j])-inter) >= threshold {
				near = append(near, i)
			}
		}
		slices.Sort(near)
		for _, i := range near {
			inter := shared[i]
			exact := norm[i] == norm[j]
			jac := float64(inter) / float64(len(sets[i])+len(sets[j])-inter)
			if exact {
				jac = 1
			}
			r.Duplicates = append(r.Duplicates, Duplicate{First: ps[i].ID, Second: ps[j].ID, Jaccard: jac, Exact: exact})
			repeats[j] = true
			relevantRepeat[j] = relevantRepeat[j] || ps[i].Relevant
		}
	}
	docTokens := map[string]int{}
	var docs []string
	for j, p := range ps {
		if repeats[j] {
			r.RepeatTokens += p.Tokens
		}
		if p.Relevant && !relevantRepeat[j] {
			r.UniqueRelevant++
		}
		doc := p.Doc
		if doc == "" {
			doc = p.ID
		}
		if _, ok := docTokens[doc]; !ok {
			docs = append(docs, doc)
		}
		docTokens[doc] += p.Tokens
	}
	if total > 0 {
		r.RepeatShare = float64(r.RepeatTokens) / float64(total)
		for _, d := range docs {
			r.DocShare = append(r.DocShare, Share{Doc: d, Share: float64(docTokens[d]) / float64(total)})
		}
	}
	return r, nil
}

// shingles hashes every run of n words (all of them when fewer), the
// words joined by single spaces; nil for no words.
func shingles(words []string, n int) map[uint64]struct{} {
	n = min(n, len(words))
	if n == 0 {
		return nil
	}
	out := make(map[uint64]struct{}, len(words)-n+1)
	h := fnv.New64a()
	for i := 0; i+n <= len(words); i++ {
		h.Reset()
		for k, w := range words[i : i+n] {
			if k > 0 {
				h.Write([]byte{' '})
			}
			io.WriteString(h, w)
		}
		out[h.Sum64()] = struct{}{}
	}
	return out
}
