package trecfile

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/diag"
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
