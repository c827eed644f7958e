package fill

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/judgments"
)

// finalScore is UMBRELA's answer format, "##final score: N", wherever it
// stands in the answer, in any case; the text after the number is checked
// apart (a fraction or a word glued to it is not a grade).
var finalScore = regexp.MustCompile(`(?i)final score\s*:\s*(-?[0-9]+)`)

// maxAnswer is the longest answer read: a grade needs no more.
const maxAnswer = 64 << 10

// ParseGrade reads the grade an answer gives, strictly: the whole answer
// (spaces aside) is an integer, or it states "final score: N" (UMBRELA's
// "##final score: N") once, or several times with one N. The grade must lie
// on scale. Anything else is an error saying why, and the pair stays a hole.
func ParseGrade(answer string, scale judgments.Scale) (int, error) {
	if len(answer) > maxAnswer {
		return 0, fmt.Errorf("an answer of %d bytes, more than a grade needs", len(answer))
	}
	s := strings.TrimSpace(answer)
	if s == "" {
		return 0, fmt.Errorf("an empty answer")
	}
	if g, err := strconv.Atoi(s); err == nil {
		return onScale(g, scale)
	}
	found := finalScore.FindAllStringSubmatchIndex(s, -1)
	if len(found) == 0 {
		return 0, fmt.Errorf("no grade: the answer is neither the grade alone nor \"##final score: N\"")
	}
	grade := 0
	for i, m := range found {
		if rest := s[m[1]:]; glued(rest) {
			return 0, fmt.Errorf("%q is not an integer grade", s[m[2]:m[1]]+cut(rest, 3))
		}
		g, err := strconv.Atoi(s[m[2]:m[3]])
		if err != nil {
			return 0, fmt.Errorf("%q is not a grade", s[m[2]:m[3]])
		}
		if i > 0 && g != grade {
			return 0, fmt.Errorf("two final scores, %d and %d", grade, g)
		}
		grade = g
	}
	return onScale(grade, scale)
}

// glued reports whether the text after a number continues it: a fraction
// (".5", ",5") or a letter or digit.
func glued(rest string) bool {
	if rest == "" {
		return false
	}
	c := rest[0]
	if (c == '.' || c == ',') && len(rest) > 1 && '0' <= rest[1] && rest[1] <= '9' {
		return true
	}
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func onScale(g int, scale judgments.Scale) (int, error) {
	if !scale.Contains(g) {
		return 0, fmt.Errorf("grade %d is off the scale %s", g, scale)
	}
	return g, nil
}
