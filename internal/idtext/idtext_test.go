package idtext

import (
	"strconv"
	"testing"
)

func TestShow(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"q1", "q1"},
		{"", ""},
		{"refund clearance", "refund clearance"},
		{`C:\docs\a`, `C:\docs\a`},
		{"café", "café"},
		{"q2\nnDCG@10 \tall\t0.9999", `"q2\nnDCG@10 \tall\t0.9999"`},
		{"a\rb", `"a\rb"`},
		{"\x00", `"\x00"`},
		{"\x7f", `"\x7f"`},
		{"a\u0085b", `"a\u0085b"`},
		{"a\u2028b", `"a\u2028b"`},
		{"abc\u202egpj.exe", `"abc\u202egpj.exe"`},
		{"a\u00a0b", `"a\u00a0b"`},
		{"\xff", `"\xff"`},
		{`"quoted"`, `"\"quoted\""`},
		{`a"b`, `a"b`},
	} {
		got := Show(c.in)
		if got != c.want {
			t.Errorf("Show(%q) = %s, want %s", c.in, got, c.want)
		}
		if got != c.in {
			if back, err := strconv.Unquote(got); err != nil || back != c.in {
				t.Errorf("Unquote(Show(%q)) = %q, %v", c.in, back, err)
			}
		}
	}
}

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"run A: 2 queries", "run A: 2 queries"},
		{`"q\n": 2 queries`, `"q\n": 2 queries`}, // a shown id at the start
		{"x\nragstat: forged", `"x\nragstat: forged"`},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestCell(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"q1", "q1"},
		{"=cmd|calc!A1", "'=cmd|calc!A1"},
		{"+1", "'+1"},
		{"-2", "'-2"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", `"\t=1"`},
		{"a=b", "a=b"},
	} {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"q_1", "q_1"},
		{"a|b", `a\|b`},
		{`a\|b`, `a\\\|b`},
		{"<img src=x>", `\<img src=x>`},
		{"a\nb", `"a\\nb"`}, // renders as "a\nb"
	} {
		if got := Markdown(c.in); got != c.want {
			t.Errorf("Markdown(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestMarkdownLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"q" has no judgment`, `"q" has no judgment`}, // a line may begin with a quote
		{"pattern \\[(\\w+)\\]", `pattern \\[(\\w+)\\]`},
		{"a <b>|c", `a \<b>\|c`},
		{"two\nlines", `"two\\nlines"`},
	} {
		if got := MarkdownLine(c.in); got != c.want {
			t.Errorf("MarkdownLine(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func BenchmarkShowPlain(b *testing.B) {
	id := "refund-clearance-0001#chunk-17"
	for b.Loop() {
		if Show(id) != id {
			b.Fatal("changed")
		}
	}
}
