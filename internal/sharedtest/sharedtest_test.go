package sharedtest

import (
	"errors"
	"fmt"
	"testing"
)

// recorder is a testing.TB that records a stop instead of stopping.
type recorder struct {
	testing.TB
	stopped string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Fatal(args ...any)              { r.stopped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, a ...any) { r.stopped = fmt.Sprintf(format, a...) }

func TestWantErr(t *testing.T) {
	bad := errors.New("q.txt:3: grade 9 is beyond 0..3")
	for _, c := range []struct {
		name     string
		err      error
		want     string
		expected bool
		stopped  string
	}{
		{"no error, none expected", nil, "", false, ""},
		{"the error expected", bad, "beyond 0..3", true, ""},
		{"an error, none expected", bad, "", false, "q.txt:3: grade 9 is beyond 0..3"},
		{"no error, one expected", nil, "beyond", true, `error <nil>, want one containing "beyond"`},
		{"another error", bad, "not an integer", true, `error q.txt:3: grade 9 is beyond 0..3, want one containing "not an integer"`},
	} {
		r := &recorder{TB: t}
		if got := WantErr(r, c.err, c.want); got != c.expected || r.stopped != c.stopped {
			t.Errorf("%s: %v, stopped %q; want %v, %q", c.name, got, r.stopped, c.expected, c.stopped)
		}
	}
}
