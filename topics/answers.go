package topics

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// matchAnswer is the best exact match and token F1 of an answer over
// reference answers (AnswerGrade.EM and F1).
func matchAnswer(text string, cited, refs []string) (em, f1 float64) {
	text = withoutCitations(text, cited)
	for _, ref := range refs {
		em = max(em, exactMatch(text, ref))
		f1 = max(f1, tokenF1(text, ref))
	}
	return em, f1
}

// AnswerGrade is an answer scored against its topic as stages scores it.
type AnswerGrade struct {
	Abstained bool
	// EM and F1 are the best exact match and token F1 over the topic's
	// reference answers, the answer's citation markers ("[faq#12]")
	// removed and SQuAD normalisation applied (lower case, no punctuation,
	// no articles); References false when it gives none.
	EM, F1     float64
	References bool
	// FactsCited is the share of the topic's required facts whose support
	// the answer cites (every item of one alternative); Facts false when it
	// requires none.
	FactsCited float64
	Facts      bool
}

// GradeAnswer scores an answer against the topic's reference answers and
// required facts.
func GradeAnswer(topic *Topic, text string, cited []string, abstained bool) AnswerGrade {
	g := AnswerGrade{Abstained: abstained, References: len(topic.Answers) > 0, Facts: len(topic.Facts) > 0}
	if g.References {
		g.EM, g.F1 = matchAnswer(text, cited, topic.Answers)
	}
	if g.Facts {
		g.FactsCited = factsCited(topic.Facts, cited)
	}
	return g
}

// Correct applies the rule that makes an answer right: it does not
// abstain, it matches a reference answer exactly or, when passF1 > 0, at
// token F1 >= passF1, and its citations support every required fact. A
// topic with neither reference answers nor facts grades nothing (graded
// false); only the parts the topic gives apply.
func (g AnswerGrade) Correct(passF1 float64) (correct, graded bool) {
	if !g.References && !g.Facts {
		return false, false
	}
	ok := !g.Abstained
	if g.References {
		ok = ok && (g.EM == 1 || passF1 > 0 && g.F1 >= passF1)
	}
	if g.Facts {
		ok = ok && g.FactsCited == 1
	}
	return ok, true
}

// CorrectRule states the rule of Correct at passF1.
func CorrectRule(passF1 float64) string {
	match := "exactly"
	if passF1 > 0 {
		match = fmt.Sprintf("exactly or at token F1 >= %g", passF1)
	}
	return "not abstained, matching a reference answer " + match + " where the topic gives answers, and citing support for every required fact where it requires facts"
}

// factsCited is the share of facts whose support the cited ids cover: every
// item of at least one alternative cited. It is 0 for no facts.
func factsCited(facts []Fact, cited []string) float64 {
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

func citesFact(alts []Support, cited []string) bool {
	for _, alt := range alts {
		all := true
		for _, piece := range alt {
			all = all && slices.Contains(cited, piece.Item)
		}
		if all {
			return true
		}
	}
	return false
}

// marker is a bracketed span, such as a citation marker "[faq#12]".
var marker = regexp.MustCompile(`\[([^\[\]]*)\]`)

// withoutCitations removes from an answer the citation markers its
// citations were read from: a bracketed span that holds only cited ids,
// separated by commas, semicolons or spaces ("[faq#12]", "[a, b]"). Other
// brackets stay: they are part of the answer.
func withoutCitations(text string, cited []string) string {
	if len(cited) == 0 {
		return text
	}
	return marker.ReplaceAllStringFunc(text, func(m string) string {
		ids := strings.FieldsFunc(m[1:len(m)-1], func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) })
		if len(ids) == 0 {
			return m
		}
		for _, id := range ids {
			if !slices.Contains(cited, id) {
				return m
			}
		}
		return " "
	})
}

var articles = regexp.MustCompile(`\b(a|an|the)\b`)

// normalizeAnswer is SQuAD's: lower case, no punctuation, no articles,
// single spaces.
func normalizeAnswer(s string) string {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if r < 128 && unicode.IsPunct(r) || r < 128 && unicode.IsSymbol(r) {
			return -1
		}
		return r
	}, s)
	s = articles.ReplaceAllString(s, " ")
	return strings.Join(strings.Fields(s), " ")
}

func exactMatch(pred, ref string) float64 {
	if normalizeAnswer(pred) == normalizeAnswer(ref) {
		return 1
	}
	return 0
}

// tokenF1 is SQuAD's token-overlap F1.
func tokenF1(pred, ref string) float64 {
	p, r := strings.Fields(normalizeAnswer(pred)), strings.Fields(normalizeAnswer(ref))
	if len(p) == 0 || len(r) == 0 {
		if len(p) == len(r) {
			return 1
		}
		return 0
	}
	counts := map[string]int{}
	for _, t := range r {
		counts[t]++
	}
	common := 0
	for _, t := range p {
		if counts[t] > 0 {
			counts[t]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	prec, rec := float64(common)/float64(len(p)), float64(common)/float64(len(r))
	return 2 * prec * rec / (prec + rec)
}
