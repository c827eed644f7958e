package topics

import (
	"math"
	"testing"
)

func TestAnswerScores(t *testing.T) {
	tests := []struct {
		pred, ref string
		em, f1    float64
	}{
		{"The Eiffel Tower!", "eiffel tower", 1, 1},
		{"within 30 days", "Within 30 days of delivery.", 0, 2 * (1.0 * 0.6) / 1.6},
		{"", "x", 0, 0},
	}
	for _, tc := range tests {
		if em := exactMatch(tc.pred, tc.ref); em != tc.em {
			t.Errorf("EM(%q,%q) = %v", tc.pred, tc.ref, em)
		}
		if f1 := tokenF1(tc.pred, tc.ref); math.Abs(f1-tc.f1) > 1e-12 {
			t.Errorf("F1(%q,%q) = %v, want %v", tc.pred, tc.ref, f1, tc.f1)
		}
	}
}

// EM and F1 read the answer without the citation markers its citations
// were read from, then apply SQuAD's normalisation.
func TestAnswerWithoutCitationMarkers(t *testing.T) {
	tests := []struct {
		text  string
		cited []string
		want  string
	}{
		{"Windows, macOS and Linux [faq#12].", []string{"faq#12"}, "Windows, macOS and Linux  ."},
		{"Yes [a, b; c] and [d]", []string{"a", "b", "c", "d"}, "Yes   and  "},
		{"Use [brackets] [faq#12]", []string{"faq#12"}, "Use [brackets]  "},
		{"No citations [faq#12]", nil, "No citations [faq#12]"},
	}
	for _, tc := range tests {
		if got := withoutCitations(tc.text, tc.cited); got != tc.want {
			t.Errorf("withoutCitations(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	text := withoutCitations("Windows, macOS and Linux [faq#12].", []string{"faq#12"})
	if exactMatch(text, "Windows, macOS and Linux") != 1 || tokenF1(text, "Windows, macOS and Linux") != 1 {
		t.Errorf("%q does not match the reference", text)
	}
}
