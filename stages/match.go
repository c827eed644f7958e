package stages

import "github.com/ragstat/ragstat/topics"

// MatchAnswer scores an answer against reference answers as stages does:
// the markers of its citations removed ("[faq#12]"), the best exact match
// and the best token F1 over the references, after SQuAD normalisation
// (lower case, no punctuation, no articles).
func MatchAnswer(text string, cited, refs []string) (em, f1 float64) {
	text = withoutCitations(text, cited)
	for _, ref := range refs {
		em = max(em, exactMatch(text, ref))
		f1 = max(f1, tokenF1(text, ref))
	}
	return em, f1
}

// FactsCited is the share of facts whose support the cited ids cover: every
// item of at least one alternative cited. It is 0 for no facts.
func FactsCited(facts []topics.Fact, cited []string) float64 {
	if len(facts) == 0 {
		return 0
	}
	n := 0
	for _, f := range facts {
		if citesFact(f.Support, cited) {
			n++
		}
	}
	return float64(n) / float64(len(facts))
}
