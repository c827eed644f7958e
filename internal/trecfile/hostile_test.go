package trecfile

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/diag"
)

func runOf(data []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// TestLineTooLong: input without newlines is refused after MaxLine bytes,
// naming the line, instead of being held whole.
func TestLineTooLong(t *testing.T) {
	defer func(old int) { blockSize = old }(blockSize)
	blockSize = 64 << 10
	data := append([]byte("q Q0 d 1 1 r\n"), bytes.Repeat([]byte{0}, 3*MaxLine)...)
	for _, lenient := range []bool{false, true} {
		err := ReadRun(runOf(data), Options{Name: "bin", Lenient: lenient}, func(*RunQuery) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "bin:2: line longer than 1048576 bytes") {
			t.Errorf("run, lenient %v: %v", lenient, err)
		}
	}
	err := ReadQrels(bytes.NewReader(data[13:]), Options{Name: "bin"}, func(QrelsLine) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "bin:1: line longer than") {
		t.Errorf("qrels: %v", err)
	}
}

// TestOnlyBlankLines: blank lines are cut into ordinary blocks (a grouped
// run's blocks end between queries, and blank lines belong to none), and
// each block stops collecting problems at MaxErrors.
func TestOnlyBlankLines(t *testing.T) {
	data := bytes.Repeat([]byte{'\n'}, 10000)
	if got := queryCut(data); got != len(data) {
		t.Errorf("queryCut of blank lines = %d, want %d", got, len(data))
	}
	if got := queryCut([]byte("q Q0 d 1 1 r\n\n\n")); got != 0 {
		t.Errorf("queryCut of one query = %d, want 0 (the block must grow)", got)
	}
	err := ReadRun(runOf(data), Options{Name: "blank"}, func(*RunQuery) error { return nil })
	var list *diag.List
	if !errors.As(err, &list) || len(list.Errs()) != MaxErrors {
		t.Fatalf("got %v", err)
	}
	if first, last := list.Errs()[0].(*diag.Error), list.Errs()[MaxErrors-1].(*diag.Error); first.Line != 1 || last.Line != MaxErrors {
		t.Errorf("lines %d to %d", first.Line, last.Line)
	}
}

// TestLongFieldsCut: a field repeated in a message is cut.
func TestLongFieldsCut(t *testing.T) {
	long := strings.Repeat("x", 5000)
	err := ReadRun(runOf([]byte(long+" Q0 d 1 notanumber r\n")), Options{Name: "r"}, func(*RunQuery) error { return nil })
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), `"… (5000 bytes)`) {
		t.Errorf("%d bytes: %.500v", len(err.Error()), err)
	}
}

// TestIntegerBounds walks the run and qrels readers with ranks and grades
// at and past what an int holds: the bounds read back exactly, anything
// past them is an error naming the file, the line and the limit; lenient
// mode saturates, as trec_eval's strtol does.
func TestIntegerBounds(t *testing.T) {
	cases := []struct {
		field string
		want  int
		err   string
	}{
		{"9223372036854775807", math.MaxInt, ""},
		{"-9223372036854775808", math.MinInt, ""},
		{"-5", -5, ""},
		{"2147483648", 1 << 31, ""},
		{"9223372036854775808", 0, `"9223372036854775808" is beyond -9223372036854775808..9223372036854775807`},
		{"-9223372036854775809", 0, `"-9223372036854775809" is beyond`},
		{"99999999999999999999999999999999", 0, `is beyond -9223372036854775808..9223372036854775807`},
		{"12x", 0, `"12x" is not an integer`},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			var rank int
			err := ReadRun(runOf([]byte("q Q0 d "+c.field+" 1.5 r\n")), Options{Name: "run.txt"}, func(q *RunQuery) error {
				rank = q.Docs[0].Rank
				return nil
			})
			check(t, "run", err, rank, c.want, "run.txt:1", c.err)
			var grade int
			err = ReadQrels(strings.NewReader("q 0 d "+c.field+"\n"), Options{Name: "q.txt"}, func(l QrelsLine) error {
				grade = l.Grade
				return nil
			})
			check(t, "qrels", err, grade, c.want, "q.txt:1", c.err)
			if c.err != "" && !strings.Contains(c.err, "not an integer") {
				err = ReadQrels(strings.NewReader("q 0 d "+c.field+"\n"), Options{Name: "q.txt", Lenient: true}, func(l QrelsLine) error {
					grade = l.Grade
					return nil
				})
				if want := math.MaxInt; err != nil || c.field[0] == '-' && grade != math.MinInt || c.field[0] != '-' && grade != want {
					t.Errorf("lenient qrels: grade %d, %v; want it saturated", grade, err)
				}
			}
		})
	}
}

func check(t *testing.T, what string, err error, got, want int, at, msg string) {
	t.Helper()
	if msg == "" {
		if err != nil || got != want {
			t.Errorf("%s: %d, %v; want %d", what, got, err, want)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), at) || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: error %v, want one at %s containing %s", what, err, at, msg)
	}
}
