package settings

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
)

func TestJudgmentsOn(t *testing.T) {
	for _, c := range []struct{ grades, data, err string }{
		{"0..3", "q 0 a 3\n", ""},
		{"0..9", "q 0 a 7\n", ""},
		{"0..3", "q 0 a 7\n", "grade"},
		{"3..0", "q 0 a 1\n", "3..0"},
	} {
		_, err := JudgmentsOn(c.grades)(input.FromBytes("q.txt", []byte(c.data)))
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("JudgmentsOn(%s) on %q: error %v, want %q", c.grades, c.data, err, c.err)
		}
	}
}
