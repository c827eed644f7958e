package judgments

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
)

// TestGradeBounds walks every judgments reader with grades at and past the
// bounds of what a Set holds (32-bit grades, the lowest one for unjudged):
// the bound itself reads back exactly, anything past it is an error naming
// the file, the line and the limit, never a grade wrapped into another.
func TestGradeBounds(t *testing.T) {
	wide := Scale{MinGrade, MaxGrade}
	formats := []struct {
		name   string
		format input.Format
		line   func(grade string) string
	}{
		{"trec", input.FormatTREC, func(g string) string { return "q 0 d " + g + "\n" }},
		{"jsonl", input.FormatJSONL, func(g string) string { return `{"query":"q","item":"d","grade":` + g + "}\n" }},
		{"json", input.FormatJSON, func(g string) string { return `{"q": {"d": ` + g + "}}\n" }},
	}
	cases := []struct {
		grade string
		want  int    // the grade read, when err is ""
		err   string // part of the error
	}{
		{strconv.Itoa(MaxGrade), MaxGrade, ""},
		{strconv.Itoa(MinGrade), MinGrade, ""},
		{"-5", -5, ""},
		{"2147483648", 0, "grade 2147483648 is outside the scale -2147483647..2147483647"},   // max+1
		{"-2147483648", 0, "grade -2147483648 is outside the scale -2147483647..2147483647"}, // the unjudged mark
		{"4294967298", 0, "grade 4294967298 is outside the scale"},                           // read as 2 once
		{"4611686018427387904", 0, "grade 4611686018427387904 is outside the scale"},         // 2^62, read as 0 once
		{"99999999999999999999999", 0, "is beyond"},                                          // past int64
	}
	for _, f := range formats {
		for _, c := range cases {
			t.Run(f.name+"/"+c.grade, func(t *testing.T) {
				s, err := read(t, "q.txt", f.line(c.grade), Options{Scale: wide, Format: f.format})
				if c.err != "" {
					if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "q.txt:1") {
						t.Fatalf("error %v, want one at q.txt:1 containing %q", err, c.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if g, ok := s.Query("q").Grade("d"); !ok || g != c.want {
					t.Errorf("grade %d (judged %v), want %d", g, ok, c.want)
				}
			})
		}
	}
}

// TestScaleBounds: a scale past the grades a Set holds is refused where it
// is read (ParseScale) and where it is given (Read, New), naming the limit.
func TestScaleBounds(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{"0..2147483647", ""},
		{"-2147483647..0", ""},
		{"0..2147483648", "2147483648 is beyond -2147483647..2147483647"},
		{"0..4294967298", "4294967298 is beyond -2147483647..2147483647"},
		{"-2147483648..0", "-2147483648 is beyond"},
		{"0..99999999999999999999", "a bound is beyond -2147483647..2147483647"},
		{"-99999999999999999999..0", "a bound is beyond"},
	} {
		_, err := ParseScale(c.in)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseScale(%q): %v, want %q", c.in, err, c.err)
		}
	}
	big := Scale{0, 1 << 32}
	if _, err := read(t, "q.txt", "q 0 d 1\n", Options{Scale: big}); err == nil || !strings.Contains(err.Error(), "4294967296 is beyond") {
		t.Errorf("Read with Scale %v: %v", big, err)
	}
	if _, err := New("mem", []Judgment{{Query: "q", Item: "d", Grade: 1}}, big); err == nil || !strings.Contains(err.Error(), "4294967296 is beyond") {
		t.Errorf("New with scale %v: %v", big, err)
	}
}
