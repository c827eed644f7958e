package progress

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/input"
)

// later is a clock that reads the start, then two delays later: a bar on
// it is past its delay from the first tick on.
func later() func() time.Time {
	calls := 0
	return func() time.Time {
		calls++
		if calls == 1 {
			return time.Unix(0, 0)
		}
		return time.Unix(0, 0).Add(2 * Delay)
	}
}

func TestLine(t *testing.T) {
	clock := time.Unix(0, 0)
	b := Start(&bytes.Buffer{}, "run.txt", 200, false, func() time.Time { return clock })
	b.Add(50)
	clock = clock.Add(1500 * time.Millisecond)
	if got := b.Line(8); got != "run.txt [==      ]  25% 1.5s" {
		t.Fatalf("got %q", got)
	}
	b.Done()
}

// TestHiddenOffTerminal checks nothing is written when show is false, and
// nothing before the delay when it is true.
func TestHiddenOffTerminal(t *testing.T) {
	var out bytes.Buffer
	b := Start(&out, "x", 10, false, time.Now)
	b.Add(10)
	time.Sleep(150 * time.Millisecond)
	b.Done()
	if out.Len() != 0 {
		t.Fatalf("wrote %q off a terminal", out.String())
	}
	quick := Start(&out, "x", 10, true, time.Now)
	time.Sleep(150 * time.Millisecond)
	quick.Done()
	if out.Len() != 0 {
		t.Fatalf("drew %q before the delay", out.String())
	}
	slow := Start(&out, "x", 10, true, later())
	time.Sleep(250 * time.Millisecond)
	slow.Done()
	if !strings.Contains(out.String(), "x [") || !strings.HasSuffix(out.String(), "\r\033[K") {
		t.Fatalf("got %q", out.String())
	}
}

// TestClearBefore: the first byte written through ClearBefore's writer
// comes after the bar's line is cleared, and Done may be called again.
func TestClearBefore(t *testing.T) {
	var tty bytes.Buffer // the terminal both streams reach
	b := Start(&tty, "evaluating", 10, true, later())
	time.Sleep(250 * time.Millisecond)
	out := b.ClearBefore(&tty)
	fmt.Fprint(out, "# results\n")
	fmt.Fprint(out, "more\n")
	b.Done()
	got := tty.String()
	if !strings.Contains(got, "evaluating [") || !strings.HasSuffix(got, "\r\033[K# results\nmore\n") {
		t.Fatalf("got %q", got)
	}
}

// TestFiles: the total is the files' sizes, and reading them counts.
func TestFiles(t *testing.T) {
	files := []*input.File{input.FromBytes("a", []byte("0123456789")), input.FromBytes("b", []byte("0123456789"))}
	clock := time.Unix(0, 0)
	b := Files(&bytes.Buffer{}, "x", files, false, func() time.Time { return clock })
	defer b.Done()
	if _, err := files[0].ReadAll(); err != nil {
		t.Fatal(err)
	}
	if got := b.Line(10); !strings.Contains(got, " 50%") {
		t.Errorf("got %q after reading one of two equal files", got)
	}
}
