package pieces

import (
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

func split(sc Scanner, s string) []string {
	var out []string
	sc.Each(s, func(p string) bool { out = append(out, p); return true })
	return out
}

func TestScanners(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          []string
	}{
		{GPT2, "Hello world's  end\n\n", []string{"Hello", " world", "'s", " ", " end", "\n\n"}},
		{GPT2, "it'S 12345 ?!x", []string{"it", "'", "S", " 12345", " ?!", "x"}},
		{CL100K, "IT'S 12345\n   \nx", []string{"IT", "'S", " ", "123", "45", "\n   \n", "x"}},
		{CL100K, "!abc  d\r\n", []string{"!abc", " ", " d", "\r\n"}},
		{QWEN2, "a 123", []string{"a", " ", "1", "2", "3"}},
		{O200K, "HelloWorld JSONDecoder don'T", []string{"Hello", "World", " JSONDecoder", " don'T"}},
		{O200K, "path/to/\nx  ", []string{"path", "/to", "/\n", "x", "  "}},
		{O200K, "e\u0301t\u00e9 \u0301", []string{"e\u0301t\u00e9", " \u0301"}},
	}
	for _, tt := range tests {
		sc, ok := For(tt.pattern)
		if !ok {
			t.Fatalf("no scanner for %q", tt.pattern)
		}
		if got := split(sc, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%.12s… %q: got %q, want %q", tt.pattern, tt.text, got, tt.want)
		}
	}
	if _, ok := For(`\w+`); ok {
		t.Error("For accepted a pattern it has no scanner for")
	}
}

// regexSplit splits s with the regular expression itself: every match, and
// every gap between matches, is a piece.
func regexSplit(re *regexp2.Regexp, s string) []string {
	runes := []rune(s)
	var out []string
	prev := 0
	m, _ := re.FindRunesMatch(runes)
	for m != nil {
		if m.Index > prev {
			out = append(out, string(runes[prev:m.Index]))
		}
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
		prev = m.Index + m.Length
		m, _ = re.FindNextMatch(m)
	}
	if prev < len(runes) {
		out = append(out, string(runes[prev:]))
	}
	return out
}

var seeds = []string{
	"", " ", "\n   \n", "Hello, World! It's 2026.\r\n\tTabs  and   spaces   ",
	"don't I'LL we'Re 'S 'x ''s", "123456789 ١٢٣ ①② ½", "日本語のテキスト、中文。한국어",
	"e\u0301 \u0301x a\u0308\u0304b ǅemal ʰʰa", "CamelCaseJSON XMLHttpRequest iPhone",
	"x/y/z\n/ ?!\r\n// \u00a0\u00a0a \u3000b \u2028c \u0085d \v\fe",
	"😀👍🏽 👨‍👩‍👧 🇫🇷!!", "a\u200bb \ufeffc \u00adx", "\x80\xff invalid \xe2\x82",
	"   leading and trailing   ", "line\n\n\n  \n\t\nend", "ſ 'ſ it'ſ K",
}

func FuzzScanners(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	patterns := []string{GPT2, CL100K, QWEN2, O200K}
	regexes := make([]*regexp2.Regexp, len(patterns))
	for i, p := range patterns {
		regexes[i] = regexp2.MustCompile(p, regexp2.None)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			s = string([]rune(s))
		}
		for i, p := range patterns {
			sc, _ := For(p)
			got, want := split(sc, s), regexSplit(regexes[i], s)
			if !slices.Equal(got, want) {
				t.Fatalf("%.12s… %q:\n got %q\nwant %q", p, s, got, want)
			}
		}
	})
}
