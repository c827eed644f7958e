package collect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

func TestCreate(t *testing.T) {
	const L = LinePrefix
	for _, c := range []struct {
		name    string
		exists  bool
		before  string
		mode    Mode
		err     string
		after   string // after appending "new"
		dropped int64
	}{
		{"new file", false, "", New, "", "new\n", 0},
		{"new refuses an existing file", true, "old\n", New, "exists: --append adds to it, --force replaces it", "", 0},
		{"new refuses an empty file", true, "", New, "exists", "", 0},
		{"append to nothing", false, "", Append, "", "new\n", 0},
		{"append to an empty file", true, "", Append, "", "new\n", 0},
		{"append", true, L + "a\n" + L + "b\n", Append, "", L + "a\n" + L + "b\nnew\n", 0},
		{"append cuts a partial line", true, L + "a\n" + L + "b\n{\"resourceSpa", Append, "", L + "a\n" + L + "b\nnew\n", 13},
		{"append cuts a long partial line", true, L + "a\n" + L + strings.Repeat("x", 150000), Append, "", L + "a\nnew\n", 150000 + int64(len(L))},
		{"append cuts a file of one partial line", true, "{\"res", Append, "", "new\n", 5},
		{"append cuts a partial line of one byte", true, L + "a\n{", Append, "", L + "a\nnew\n", 1},
		// Files a receiver did not write are refused, untouched.
		{"append refuses text without a final newline", true, "hello", Append, "does not start as the lines ragstat collect writes", "", 0},
		{"append refuses JSON without a final newline", true, `{"spans":[]}`, Append, "does not start as the lines", "", 0},
		{"append refuses another first line", true, "q1 Q0 d1 1 1 r\n" + L + "a\n", Append, "not appending (the file is left as it is; --force replaces it): it does not start", "", 0},
		{"append refuses another last line", true, L + "a\n{}\n", Append, "its last whole line does not start", "", 0},
		{"append refuses another partial line", true, L + "a\nhello", Append, "what follows its last newline does not start", "", 0},
		{"replace", true, "a\nb\n", Replace, "", "new\n", 0},
		{"replace nothing", false, "", Replace, "", "new\n", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.jsonl")
			if c.exists {
				os.WriteFile(path, []byte(c.before), 0o644)
			}
			s, err := Create(path, c.mode)
			if sharedtest.WantErr(t, err, c.err) {
				if b, _ := os.ReadFile(path); string(b) != c.before {
					t.Errorf("the file changed: %q", b)
				}
				return
			}
			if err := s.Append([]byte("new")); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if b, _ := os.ReadFile(path); string(b) != c.after {
				t.Errorf("file %q, want %q", b, c.after)
			}
			if s.Dropped != c.dropped {
				t.Errorf("dropped %d bytes, want %d", s.Dropped, c.dropped)
			}
			if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(m) > 0 {
				t.Errorf("left behind %v", m)
			}
		})
	}
}

func TestAppendConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	s, err := Create(path, New)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 20 {
				if err := s.Append([]byte(fmt.Sprintf("%d-%d-%s", w, i, strings.Repeat("x", 5000)))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	s.Close()
	b, _ := os.ReadFile(path)
	seen := map[string]bool{}
	for l := range strings.Lines(string(b)) {
		id, rest, _ := strings.Cut(strings.TrimSuffix(l, "\n"), "-x")
		if rest != strings.Repeat("x", 4999) || seen[id] {
			t.Fatalf("line %q interleaved or repeated", l[:min(len(l), 20)])
		}
		seen[id] = true
	}
	if len(seen) != 160 {
		t.Errorf("%d lines, want 160", len(seen))
	}
}

func TestStreamPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := Stream(w, "pipe")
	go func() {
		s.Append([]byte("one"))
		s.Append([]byte("two"))
		w.Close()
	}()
	b := make([]byte, 100)
	n, _ := r.Read(b)
	for n < 8 {
		m, err := r.Read(b[n:])
		if err != nil {
			break
		}
		n += m
	}
	if string(b[:n]) != "one\ntwo\n" {
		t.Errorf("read %q", b[:n])
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	if w.n > 1 {
		return 3, fmt.Errorf("disk on fire")
	}
	return len(p), nil
}

func TestStreamFailure(t *testing.T) {
	s := Stream(&failWriter{}, "out")
	if err := s.Append([]byte("one")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Append([]byte("two")); err == nil || !strings.Contains(err.Error(), "out: disk on fire") {
			t.Fatalf("error %v", err)
		}
	}
}

func TestModeOf(t *testing.T) {
	for _, tc := range []struct {
		appending, replacing bool
		want                 Mode
	}{
		{false, false, New},
		{true, false, Append},
		{false, true, Replace},
		{true, true, Append},
	} {
		if got := ModeOf(tc.appending, tc.replacing); got != tc.want {
			t.Errorf("ModeOf(%v, %v) = %v, want %v", tc.appending, tc.replacing, got, tc.want)
		}
	}
}
