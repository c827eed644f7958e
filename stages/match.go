package stages

import (
	"fmt"

	"github.com/ragstat/ragstat/topics"
)

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

// AnswerGrade is an answer scored against its topic as stages scores it.
type AnswerGrade struct {
	Abstained bool
	// EM and F1 are the best exact match and token F1 over the topic's
	// reference answers (MatchAnswer); References false when it gives none.
	EM, F1     float64
	References bool
	// FactsCited is the share of the topic's required facts whose support
	// the answer cites (FactsCited); Facts false when it requires none.
	FactsCited float64
	Facts      bool
}

// GradeAnswer scores an answer against the topic's reference answers and
// required facts.
func GradeAnswer(topic *topics.Topic, text string, cited []string, abstained bool) AnswerGrade {
	g := AnswerGrade{Abstained: abstained, References: len(topic.Answers) > 0, Facts: len(topic.Facts) > 0}
	if g.References {
		g.EM, g.F1 = MatchAnswer(text, cited, topic.Answers)
	}
	if g.Facts {
		g.FactsCited = FactsCited(topic.Facts, cited)
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
