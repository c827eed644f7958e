package jsonin

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
)

// TestLines: lines are bounded by the file's line limit (a floor raising
// it for documents), and a torn last line is skipped with a warning, or an
// error when strict or when nothing takes warnings.
func TestLines(t *testing.T) {
	long := `{"a":"` + strings.Repeat("x", 2<<20) + `"}` + "\n"
	for _, c := range []struct {
		name   string
		data   string
		cfg    input.Config
		floor  int
		lines  int
		err    string
		warned string
	}{
		{"whole", "{\"a\":1}\n{\"a\":2}\n", input.Config{}, 0, 2, "", ""},
		{"no final newline", "{\"a\":1}\n{\"a\":2}", input.Config{}, 0, 2, "", ""},
		{"torn, warned", "{\"a\":1}\n{\"a\":", input.Config{Warn: func(string) {}}, 0, 1, "", "t.jsonl:2: last line incomplete: a writer stopped mid-line; 1 complete lines imported"},
		{"torn, strict", "{\"a\":1}\n{\"a\":", input.Config{Strict: true, Warn: func(string) {}}, 0, 1, "t.jsonl:2: last line incomplete", ""},
		{"torn, no warnings", "{\"a\":1}\n{\"a\":", input.Config{}, 0, 1, "t.jsonl:2: last line incomplete", ""},
		{"only line torn", "{\"a\":", input.Config{Warn: func(string) {}}, 0, 1, "", ""},
		{"not JSON at the end", "{\"a\":1}\nfin", input.Config{}, 0, 2, "", ""},
		{"over the default limit", long, input.Config{}, 0, 0, "line longer than 1 MiB", ""},
		{"limit raised", long, input.Config{MaxLine: 4 << 20}, 0, 1, "", ""},
		{"document floor", long, input.Config{}, DocumentLine, 1, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var warned string
			if c.cfg.Warn != nil {
				c.cfg.Warn = func(msg string) { warned = msg }
			}
			f, err := input.Open(input.Stdin, input.WithConfig(strings.NewReader(c.data), c.cfg))
			if err != nil {
				t.Fatal(err)
			}
			f.Name = "t.jsonl"
			defer f.Close()
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			n := 0
			err = LinesInto(r, f.Name, f, c.floor, func() []byte { return nil }, func(int, []byte) error { n++; return nil })
			got := ""
			if err != nil {
				got = err.Error()
			}
			if c.err == "" && err != nil || !strings.Contains(got, c.err) {
				t.Errorf("error %q, want %q", got, c.err)
			}
			if c.err == "" && n != c.lines {
				t.Errorf("%d lines, want %d", n, c.lines)
			}
			if warned != c.warned {
				t.Errorf("warning %q, want %q", warned, c.warned)
			}
		})
	}
}

// TestUnique: a repeated key is named with its line, at any depth; text
// without one, valid or not, passes.
func TestUnique(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"a":1,"b":{"a":2}}`, ""},
		{`{"a":1,`, ""},
		{"{\"a\":1,\n\"a\":2}", `f.json:2: key "a" given twice in one object`},
		{"{\"x\":[{\"k\":1},\n{\"k\":2,\n\"k\":3}]}", `f.json:3: key "k" given twice in one object in "/x/1"`},
	} {
		err := Unique("f.json", 1, []byte(c.data))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if c.want == "" && err != nil || !strings.Contains(got, c.want) {
			t.Errorf("Unique(%q) = %q, want %q", c.data, got, c.want)
		}
	}
}

// FuzzUnique: Unique never panics, and on valid JSON it finds a repeated
// key exactly when Decode's own check does.
func FuzzUnique(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1,"b":2}}`, `[{"a":1},{"a":1}]`, `{"a\u0062":1,"ab":2}`, `{"a":`, "{\"a\":1}\n{\"a\":1,\"a\":1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Unique("f", 1, data)
		if !json.Valid(data) {
			return
		}
		if (err != nil) != (checkKeys(data) != nil) {
			t.Errorf("Unique %v, checkKeys %v", err, checkKeys(data))
		}
	})
}
