package audit

import (
	"strings"
	"testing"
)

// FuzzParseRule: any text is a rule or an error naming the option, never
// a panic, and a rule read back from its text is the same rule.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"informative<30", "leakage>0.3", "saturated>=0.5", "trivial<=1", "x<", "<3", "leakage>>1", "informative<NaN", "duplicate>1e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			if !strings.Contains(err.Error(), "fail_on") {
				t.Errorf("%q: %v does not name the option", s, err)
			}
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again != r {
			t.Errorf("%q read back as %+v, %v", s, again, err)
		}
	})
}
