package fill

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
)

func TestParseGrade(t *testing.T) {
	scale := judgments.DefaultScale
	for _, tc := range []struct {
		answer string
		grade  int
		err    string
	}{
		{"##final score: 2", 2, ""},
		{"  3\n", 3, ""},
		{"**##Final Score: 1**", 1, ""},
		{"M: 2\nT: 1\n##final score: 2", 2, ""},
		{"##final score: 2\n##final score: 2", 2, ""},
		{"##final score:0.", 0, ""},
		{"", 0, "an empty answer"},
		{"relevant", 0, "no grade"},
		{"M: 2, T: 1, O: 2", 0, "no grade"},
		{"##final score: 2.5", 0, `"2.5" is not an integer grade`},
		{"##final score: 2a", 0, `"2a" is not an integer grade`},
		{"##final score: 1\n##final score: 3", 0, "two final scores, 1 and 3"},
		{"##final score: 4", 0, "grade 4 is off the scale 0..3"},
		{"-1", 0, "grade -1 is off the scale 0..3"},
		{"##final score: 99999999999999999999999", 0, "is not a grade"},
		{strings.Repeat("x", maxAnswer+1), 0, "more than a grade needs"},
	} {
		g, err := ParseGrade(tc.answer, scale)
		switch {
		case tc.err == "" && (err != nil || g != tc.grade):
			t.Errorf("%q: %d, %v; want %d", tc.answer, g, err, tc.grade)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %d, %v; want an error %q", tc.answer, g, err, tc.err)
		}
	}
}

// FuzzParseGrade: any answer gives a grade on the scale that it states, or
// an error; never a panic.
func FuzzParseGrade(f *testing.F) {
	for _, s := range []string{"##final score: 2", "3", "##final score: 2.5", "final score: 1 final score: 1", "", "##FINAL SCORE:-1", "x\n2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		g, err := ParseGrade(answer, judgments.DefaultScale)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if !judgments.DefaultScale.Contains(g) || !strings.Contains(answer, strconv.Itoa(g)) {
			t.Fatalf("%q gave grade %d", answer, g)
		}
	})
}

func TestTemplate(t *testing.T) {
	u, err := LoadTemplate(UMBRELA, nil)
	if err != nil || u.SHA256 != "c92537a4f97293dfe1fd5f3dccc3f7dea44e3ace65061a74dbf8afc833441546" || len(u.Text) != 1341 {
		t.Fatalf("UMBRELA's prompt: %v, sha256 %s, %d bytes", err, u.SHA256, len(u.Text))
	}
	p := u.Prompt("what is {passage}?", "a passage with {query} in it")
	if !strings.Contains(p, "\nQuery: what is {passage}?\nPassage: a passage with {query} in it\n") {
		t.Errorf("prompt:\n%s", p)
	}
	dir := t.TempDir()
	open := func(path string) (*input.File, error) { return input.Open(path, nil) }
	for name, tc := range map[string]struct{ text, err string }{
		"ok.txt":      {"Q: {query}\nP: {passage}\nGrade 0-3:", ""},
		"no-pass.txt": {"Q: {query}", "needs {query} and {passage}"},
		"latin1.txt":  {"{query} {passage} \xe9", "not UTF-8"},
		"big.txt":     {"{query}{passage}" + strings.Repeat("x", maxTemplate), "more than 1048576 bytes"},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		tmpl, err := LoadTemplate(path, open)
		switch {
		case tc.err == "" && (err != nil || tmpl.Name != path || tmpl.Prompt("q", "p") != "Q: q\nP: p\nGrade 0-3:"):
			t.Errorf("%s: %v, %+v", name, err, tmpl)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %q", name, err, tc.err)
		}
	}
}

// TestDraw: the same queries and seed give the same draw in any order, and
// over many seeds every query is drawn about n/N of the time.
func TestDraw(t *testing.T) {
	queries := make([]string, 10)
	for i := range queries {
		queries[i] = fmt.Sprintf("q%d", i)
	}
	a, _ := Draw(queries, 3, 7)
	b, _ := Draw([]string{"q9", "q8", "q7", "q6", "q5", "q4", "q3", "q2", "q1", "q0", "q0"}, 3, 7)
	if strings.Join(a, " ") != strings.Join(b, " ") || len(a) != 3 {
		t.Errorf("draws %v and %v", a, b)
	}
	counts := map[string]int{}
	const seeds = 20000
	for s := range uint64(seeds) {
		d, err := Draw(queries, 3, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range d {
			counts[q]++
		}
	}
	// Each count is binomial(20000, 0.3): sd 65; 5 sd is 325.
	for _, q := range queries {
		if c := counts[q]; c < 6000-325 || c > 6000+325 {
			t.Errorf("%s drawn %d times in %d draws, want about 6000", q, c, seeds)
		}
	}
	if _, err := Draw(queries, 0, 1); err == nil {
		t.Error("a draw of 0 queries")
	}
}
