package trecfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ragstat/ragstat/internal/diag"
)

// opener returns an open function over a string.
func opener(s string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(s)), nil }
}

// gotQuery is a delivered query with its strings copied.
type gotQuery struct {
	Query, Tag, LastTag string
	Docs                []RunDoc
}

// readAll runs ReadRun and returns the delivered queries sorted by id. A
// query delivered twice is an error unless opt.Redeliver is set, when the
// later delivery replaces the earlier one.
func readAll(t testing.TB, input string, opt Options) ([]gotQuery, error) {
	t.Helper()
	var mu sync.Mutex
	byQuery := map[string]gotQuery{}
	twice := ""
	err := ReadRun(opener(input), opt, func(q *RunQuery) error {
		g := gotQuery{Query: strings.Clone(q.Query), Tag: strings.Clone(q.Tag), LastTag: strings.Clone(q.LastTag)}
		for _, d := range q.Docs {
			d.Doc = strings.Clone(d.Doc)
			g.Docs = append(g.Docs, d)
		}
		mu.Lock()
		defer mu.Unlock()
		if _, dup := byQuery[g.Query]; dup && !opt.Redeliver {
			twice = g.Query
		}
		byQuery[g.Query] = g
		return nil
	})
	if twice != "" {
		t.Errorf("query %q delivered twice", twice)
	}
	var got []gotQuery
	for _, g := range byQuery {
		got = append(got, g)
	}
	slices.SortFunc(got, func(a, b gotQuery) int { return strings.Compare(a.Query, b.Query) })
	return got, err
}

func TestReadRunErrors(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		lenient bool
		want    string // the error text, "" for success
	}{
		{"ok", "q1 Q0 d1 1 2.5 tag\n", false, ""},
		{"five fields", "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5\n", false, `run.txt:2: query "q1": found 5 fields, want 6: qid Q0 docid rank score tag (fields are separated by spaces or tabs)`},
		{"seven fields", "q1 Q0 d1 1 2.5 tag x\n", false, `run.txt:1: query "q1": found 7 fields, want 6: qid Q0 docid rank score tag (fields are separated by spaces or tabs)`},
		{"seven fields lenient", "q1 Q0 d1 1 2.5 tag x\n", true, ""},
		{"four fields lenient", "q1 Q0 d1 0.9\n", true, `run.txt:1: query "q1": found 4 fields, want 6 or more: qid Q0 docid rank score tag (fields are separated by spaces or tabs)`},
		{"nan score", "q1 Q0 d1 1 NaN tag\n", false, `run.txt:1: query "q1", item "d1": score "NaN" is not a finite number; write scores as decimals such as 12.5 or 1e-3`},
		{"inf score", "q1 Q0 d1 1 -inf tag\n", false, `run.txt:1: query "q1", item "d1": score "-inf" is not a finite number; write scores as decimals such as 12.5 or 1e-3`},
		{"garbage score", "q1 Q0 d1 1 abc tag\n", false, `run.txt:1: query "q1", item "d1": score "abc" is not a finite number; write scores as decimals such as 12.5 or 1e-3`},
		{"garbage score lenient", "q1 Q0 d1 1 abc tag\n", true, ""},
		{"bad rank", "q1 Q0 d1 1.5 2 tag\n", false, `run.txt:1: query "q1", item "d1": rank "1.5" is not an integer; the fourth column is the rank (1, 2, ...)`},
		{"blank line", "q1 Q0 d1 1 2 tag\n  \t\nq1 Q0 d2 2 1 tag\n", false, `run.txt:2: blank line; remove it (a run file has one entry per line)`},
		{"blank line lenient", "\nq1 Q0 d1 1 2 tag\n  \t\n", true, ""},
		{"comment", "# header\nq1 Q0 d1 1 2 tag\n", false, `run.txt:1: comment line (starts with '#'); run files have no comments: remove it (trec-eval skips comments)`},
		{"comment lenient", "  # header\nq1 Q0 d1 1 2 tag\n", true, ""},
		{"empty", "", false, `run.txt: no run lines: the file is empty or holds only blank lines and comments; a TREC run has lines "qid Q0 docid rank score tag"`},
		{"only comments lenient", "# a\n\n", true, `run.txt: no run lines: the file is empty or holds only blank lines and comments; a TREC run has lines "qid Q0 docid rank score tag"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readAll(t, tt.input, Options{Name: "run.txt", Lenient: tt.lenient})
			if got := errText(err); got != tt.want {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
			var list *diag.List
			var one *diag.Error
			if err != nil && (!errors.As(err, &list) || !errors.As(err, &one)) {
				t.Errorf("error %T is not a diag.List of diag.Errors", err)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestReadRunValues(t *testing.T) {
	input := "q1 Q0 d1 1 2.5 runA\r\nq1\tQ0\td2\t2\t-1e-3\trunB\n\nq2 Q0 d3 x 0x1p1 runC"
	got, err := readAll(t, input, Options{Name: "r", Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	// Lenient mode leaves the rank column unread, as trec_eval does.
	want := []gotQuery{
		{Query: "q1", Tag: "runA", LastTag: "runB", Docs: []RunDoc{{"d1", 2.5, 0, 1}, {"d2", -1e-3, 0, 2}}},
		{Query: "q2", Tag: "runC", LastTag: "runC", Docs: []RunDoc{{"d3", 2, 0, 4}}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestReadRunStopsAfterMaxErrors(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "q%d Q0 d 1 bad t\n", i)
	}
	_, err := readAll(t, b.String(), Options{Name: "r"})
	var list *diag.List
	if !errors.As(err, &list) || len(list.Errs()) != MaxErrors {
		t.Fatalf("got %v, want %d errors", err, MaxErrors)
	}
	for i, e := range list.Errs() {
		if e.(*diag.Error).Line != i+1 {
			t.Errorf("error %d is %v, want line %d", i, e, i+1)
		}
	}
	if !strings.Contains(err.Error(), "(ragstat stops after 20") {
		t.Errorf("message does not say reading stopped: %q", err)
	}
}

func TestReadRunCallbackError(t *testing.T) {
	stop := errors.New("stop")
	err := ReadRun(opener("q1 Q0 d 1 1 t\n"), Options{}, func(*RunQuery) error { return stop })
	if err != stop {
		t.Errorf("got %v, want the callback's error", err)
	}
	err = ReadRun(func() (io.ReadCloser, error) { return nil, stop }, Options{}, nil)
	if err != stop {
		t.Errorf("got %v, want the open error", err)
	}
}

// makeRun writes a grouped run of nq queries with up to nd docs each.
func makeRun(nq, nd int, rng *rand.Rand) []string {
	var lines []string
	for q := range nq {
		for d := range 1 + rng.IntN(nd) {
			lines = append(lines, fmt.Sprintf("q%d Q0 doc%d %d %.4f t%d", q, rng.IntN(1000), d+1, rng.Float64()*10, d))
		}
	}
	return lines
}

// TestReadRunUngrouped checks that a shuffled run, read across many small
// blocks, delivers the same queries as the grouped one, with and without
// Redeliver.
func TestReadRunUngrouped(t *testing.T) {
	for _, redeliver := range []bool{false, true} {
		t.Run(fmt.Sprint("redeliver=", redeliver), func(t *testing.T) { testUngrouped(t, redeliver) })
	}
}

func testUngrouped(t *testing.T, redeliver bool) {
	defer func(n int) { blockSize = n }(blockSize)
	blockSize = 256
	rng := rand.New(rand.NewPCG(1, 2))
	lines := makeRun(50, 40, rng)
	opt := Options{Workers: 3, Redeliver: redeliver}
	grouped, err := readAll(t, strings.Join(lines, "\n")+"\n", opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(grouped) != 50 {
		t.Fatalf("got %d queries, want 50", len(grouped))
	}
	order := rng.Perm(len(lines))
	shuffled := make([]string, len(lines))
	for i, j := range order {
		shuffled[i] = lines[j]
	}
	got, err := readAll(t, strings.Join(shuffled, "\n"), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(grouped) {
		t.Fatalf("got %d queries, want %d", len(got), len(grouped))
	}
	for i := range got {
		if len(got[i].Docs) != len(grouped[i].Docs) {
			t.Fatalf("query %s: %d docs, want %d", got[i].Query, len(got[i].Docs), len(grouped[i].Docs))
		}
		if !slices.IsSortedFunc(got[i].Docs, func(a, b RunDoc) int { return a.Line - b.Line }) {
			t.Errorf("query %s: docs not in file order", got[i].Query)
		}
		byRank := func(a, b RunDoc) int { return a.Rank - b.Rank }
		slices.SortFunc(got[i].Docs, byRank)
		for j, d := range got[i].Docs {
			g := grouped[i].Docs[j]
			if d.Doc != g.Doc || d.Score != g.Score || d.Rank != g.Rank {
				t.Errorf("query %s doc %d: %+v, want %+v", got[i].Query, j, d, g)
			}
		}
	}
}

// TestReadRunLongQuery reads a query longer than a block.
func TestReadRunLongQuery(t *testing.T) {
	defer func(n int) { blockSize = n }(blockSize)
	blockSize = 64
	input := strings.Repeat("a Q0 d 1 1 t\n", 100) + "b Q0 d 1 1 t\n"
	got, err := readAll(t, strings.ReplaceAll(input, " d ", " d"+"x ")+"", Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].Docs) != 100 || got[0].Docs[99].Line != 100 || got[1].Docs[0].Line != 101 {
		t.Errorf("got %d queries, first with %d docs", len(got), len(got[0].Docs))
	}
}

// TestReadRunValues_random reads runs in the usual shape with the cases a
// line's fast path must leave to the usual one (query ids that share their
// first eight bytes or are prefixes of one another, ranks of nine digits or
// with a sign, scores that are long, negative or in exponent form, tabs,
// lines past 64 bytes), in blocks of many sizes, and checks every value
// against a reading of each line on its own.
func TestReadRunValues_random(t *testing.T) {
	defer func(n int) { blockSize = n }(blockSize)
	rng := rand.New(rand.NewPCG(3, 4))
	ids := []string{"1", "10", "100", "7", "abcdefgh", "abcdefgh1", "abcdefgh2", "abcdefghijklmnop", "q", "#q"} // "#q": a comment where lenient
	ranks := []string{"1", "12", "12345678", "123456789", "-3", "0012"}
	scores := []string{"2.5", "-1.25", "12.345678", "123456789.5", "1e-3", "7", "0.000001", "23.669104"}
	var b strings.Builder
	type line struct{ query, doc, rank, score, tag string }
	var lines []line
	for q := range 40 {
		id := ids[q%len(ids)] + strings.Repeat("x", q/len(ids))
		for range 1 + rng.IntN(30) {
			l := line{id, "doc" + strings.Repeat("d", rng.IntN(3)*rng.IntN(40)) + strconv.Itoa(rng.IntN(1e6)),
				ranks[rng.IntN(len(ranks))], scores[rng.IntN(len(scores))], "tag" + strconv.Itoa(rng.IntN(3))}
			lines = append(lines, l)
			sep := " "
			if rng.IntN(10) == 0 {
				sep = "\t"
			}
			b.WriteString(strings.Join([]string{l.query, "Q0", l.doc, l.rank, l.score, l.tag}, sep) + "\n")
		}
	}
	for _, lenient := range []bool{false, true} {
		input := b.String()
		if !lenient {
			input = strings.ReplaceAll(input, "#q", "hq") // no comments where strict
		}
		want := map[string]*gotQuery{}
		var order []string
		for i, l := range lines {
			if !lenient && l.query[0] == '#' {
				l.query = "h" + l.query[1:]
			}
			if lenient && l.query[0] == '#' {
				continue
			}
			d := RunDoc{Doc: l.doc, Line: i + 1}
			if lenient {
				d.Score = Atof([]byte(l.score))
			} else {
				d.Score, _ = strconv.ParseFloat(l.score, 64)
				d.Rank, _ = strconv.Atoi(l.rank)
			}
			g := want[l.query]
			if g == nil {
				g = &gotQuery{Query: l.query, Tag: l.tag}
				want[l.query] = g
				order = append(order, l.query)
			}
			g.LastTag = l.tag
			g.Docs = append(g.Docs, d)
		}
		slices.Sort(order)
		for _, size := range []int{64, 100, 333, 1000, 1 << 20} {
			blockSize = size
			got, err := readAll(t, input, Options{Name: "r", Lenient: lenient, Workers: 2})
			if err != nil {
				t.Fatalf("lenient %v, block %d: %v", lenient, size, err)
			}
			if len(got) != len(order) {
				t.Fatalf("lenient %v, block %d: %d queries, want %d", lenient, size, len(got), len(order))
			}
			for i, g := range got {
				if w := want[order[i]]; fmt.Sprint(g) != fmt.Sprint(*w) {
					t.Fatalf("lenient %v, block %d:\ngot  %v\nwant %v", lenient, size, g, *w)
				}
			}
		}
	}
}

// TestReadRunWindowEnd reads runs whose last line ends exactly where the
// data ends, with its fields at every position of the 64-byte window that
// the lines of a query are read through, after a line of the same query.
func TestReadRunWindowEnd(t *testing.T) {
	for _, lenient := range []bool{false, true} {
		for doc := 1; doc <= 60; doc++ {
			for _, rest := range []string{" 1 1 tt", " 12345678 2.5 t", " 1 23.669104 t", " 7 1 x"} {
				last := "q Q0 " + strings.Repeat("d", doc) + rest
				input := "q Q0 a 1 1 t\n" + last + "\n"
				got, err := readAll(t, input, Options{Name: "r", Lenient: lenient})
				if err != nil {
					t.Fatalf("%q: %v", input, err)
				}
				if len(got) != 1 || len(got[0].Docs) != 2 || got[0].Docs[1].Doc != strings.Repeat("d", doc) || got[0].Docs[1].Line != 2 {
					t.Fatalf("%q: got %v", input, got)
				}
			}
		}
	}
}

func TestReadQrels(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		lenient bool
		want    string // lines as query/iter/doc/grade/line, or the error
	}{
		{"ok", "1 0 a 1\n1 0 b 0\r\n2 Q c -2", false, "1/0/a/1/1 1/0/b/0/2 2/Q/c/-2/3"},
		{"atol grades", "1 0 a high\n1 0 b 2.7\n", true, "1/0/a/0/1 1/0/b/2/2"},
		{"bad grade", "1 0 a high\n", false, `q:1: query "1", item "a": grade "high" is not an integer; the fourth column is the relevance grade (0, 1, 2, ...)`},
		{"three fields", "1 0 a\n", true, `q:1: query "1": found 3 fields, want 4: qid iter docid grade (fields are separated by spaces or tabs)`},
		{"five fields", "1 0 a 1 x\n", false, `q:1: query "1": found 5 fields, want 4: qid iter docid grade (fields are separated by spaces or tabs)`},
		{"blank lenient", "1 0 a 1\n\n1 0 b 0\n", true, `q:2: blank line; remove it (a qrels file has one entry per line)`},
		{"comment lenient", "# c\n1 0 a 1\n# d\n1 0 b 0\n", true, "1/0/a/1/2 1/0/b/0/4"},
		{"two comments lenient", "# c\n# x y z\n", true, "#/x/y/0/2"},
		{"indented hash is data lenient", " # x y 1\n", true, "#/x/y/1/1"},
		{"comment strict", "# c\n1 0 a 1\n", false, `q:1: comment line (starts with '#'); qrels files have no comments: remove it (trec-eval skips comments)`},
		{"empty", "", true, `q: no judgments: the file is empty; a qrels file has lines "qid iter docid grade"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, lines []string
			err := ReadQrels(strings.NewReader(tt.input), Options{Name: "q", Lenient: tt.lenient}, func(l QrelsLine) error {
				got = append(got, fmt.Sprintf("%s/%s/%s/%d/%d", l.Query, l.Iter, l.Doc, l.Grade, l.Line))
				lines = append(lines, groupLine(l.Query, l.Doc, l.Grade, l.Line))
				return nil
			})
			if err != nil {
				got = []string{err.Error()}
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("got  %s\nwant %s", s, tt.want)
			}
			groups, gerr := qrelsByGroups(tt.input, Options{Name: "q", Lenient: tt.lenient})
			if fmt.Sprint(gerr) != fmt.Sprint(err) || err == nil && !slices.Equal(groups, lines) {
				t.Errorf("ReadQrelsGroups: got %q, %v\nwant %q, %v", groups, gerr, lines, err)
			}
		})
	}
}

// TestReadQrelsBlocks reads qrels split into many small blocks, with
// comments around block ends, and checks the lines match one block's.
func TestReadQrelsBlocks(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		if i%7 == 0 {
			b.WriteString("# comment\n")
		}
		fmt.Fprintf(&b, "q%d 0 doc%d %d\n", i/10, i, i%4)
		if i%31 == 0 {
			b.WriteString("# first\n# second a b\n") // the second is data, as in trec_eval
		}
	}
	read := func(size int) []string {
		defer func(n int) { blockSize = n }(blockSize)
		blockSize = size
		var got []string
		err := ReadQrels(strings.NewReader(b.String()), Options{Lenient: true, Workers: 3}, func(l QrelsLine) error {
			got = append(got, fmt.Sprint(l))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := read(1 << 20)
	if len(want) != 310 {
		t.Fatalf("%d lines, want 310", len(want))
	}
	if got := read(40); !slices.Equal(got, want) {
		t.Errorf("small blocks give different lines:\n%v\nwant\n%v", got[:5], want[:5])
	}
}

func TestAtof(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"2.5", 2.5}, {"-0.125", -0.125}, {"+3", 3}, {"1e3", 1000}, {"1e", 1}, {"1e+", 1},
		{"abc", 0}, {"", 0}, {"-", 0}, {".", 0}, {".5x", 0.5}, {"12abc", 12}, {"0x1p4", 16},
		{"0x1.8", 1.5}, {"0x", 0}, {"0xg", 0}, {"inf", math.Inf(1)}, {"-Infinity", math.Inf(-1)},
		{"1e999", math.Inf(1)}, {"0.1234567890123456789", 0.1234567890123456789},
		{"123456789012345678", 123456789012345678},
	}
	for _, tt := range tests {
		if got := Atof([]byte(tt.in)); got != tt.want {
			t.Errorf("Atof(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if v := Atof([]byte("nan")); !math.IsNaN(v) {
		t.Errorf("Atof(nan) = %v", v)
	}
}

func TestAtol(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"3", 3}, {"-2", -2}, {"+7", 7}, {"2.9", 2}, {"x", 0}, {"", 0}, {" 12", 12},
		{"99999999999999999999", math.MaxInt64}, {"-99999999999999999999", math.MinInt64},
		{"-9223372036854775808", math.MinInt64},
	}
	for _, tt := range tests {
		if got := Atol([]byte(tt.in)); got != tt.want {
			t.Errorf("Atol(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// reference parses a run the simple way: strings.Fields per line.
func reference(input string, lenient bool) (map[string][]string, bool) {
	out := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(input, "\n"), "\n") {
		f := strings.FieldsFunc(line, func(r rune) bool { return r < 256 && isSpace[byte(r)] })
		if len(f) == 0 || f[0][0] == '#' {
			if lenient {
				continue
			}
			return nil, false
		}
		if len(f) < 6 || !lenient && len(f) != 6 {
			return nil, false
		}
		if _, ok := parseScore([]byte(f[4])); !lenient && !ok {
			return nil, false
		}
		if _, ok := parseInt([]byte(f[3])); !lenient && !ok {
			return nil, false
		}
		out[f[0]] = append(out[f[0]], f[2])
	}
	return out, len(out) > 0
}

func FuzzReadRun(f *testing.F) {
	f.Add("q1 Q0 d1 1 2.5 t\nq2 Q0 d2 1 1 t\nq1 Q0 d3 2 0.5 t\n", true, 16)
	f.Add("q1 Q0 d1 1 2.5 t\n\n# c\nq1 Q0 d2 x nan t x\n", true, 8)
	f.Add("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1 t", false, 4)
	f.Add("q Q0 a 1 1 t\nq Q0 ddddddddddddddddddddddddddddddddddddddddddddddddddd 1 1 tt\n", false, 1023) // a line's window at the end of the data
	f.Fuzz(func(t *testing.T, input string, lenient bool, size int) {
		defer func(n int) { blockSize = n }(blockSize)
		blockSize = 1 + size&1023
		got, err := readAll(t, input, Options{Lenient: lenient, Workers: 2, Redeliver: size&1024 != 0})
		want, ok := reference(input, lenient)
		if (err == nil) != ok {
			t.Fatalf("error %v, reference ok %v", err, ok)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%d queries, want %d", len(got), len(want))
		}
		for _, q := range got {
			docs := make([]string, len(q.Docs))
			for i, d := range q.Docs {
				docs[i] = d.Doc
			}
			if !slices.Equal(docs, want[q.Query]) {
				t.Fatalf("query %q: docs %q, want %q", q.Query, docs, want[q.Query])
			}
		}
	})
}

// referenceQrels parses qrels the simple way, line by line.
func referenceQrels(input string, lenient bool) ([]string, bool) {
	var out []string
	prevComment := false
	for no, line := range strings.Split(strings.TrimSuffix(input, "\n"), "\n") {
		comment := strings.HasPrefix(line, "#") && !prevComment
		prevComment = comment && lenient
		f := strings.FieldsFunc(line, func(r rune) bool { return r < 256 && isSpace[byte(r)] })
		switch {
		case lenient && comment:
			continue
		case len(f) != 4 || !lenient && f[0][0] == '#':
			return nil, false
		}
		g := int(Atol([]byte(f[3])))
		if v, ok := parseInt([]byte(f[3])); !lenient {
			if !ok {
				return nil, false
			}
			g = v
		}
		out = append(out, fmt.Sprintf("%s/%s/%s/%d/%d", f[0], f[1], f[2], g, no+1))
	}
	return out, len(out) > 0
}

func FuzzReadQrels(f *testing.F) {
	f.Add("1 0 a 1\n1 0 b 0\n", true, 16)
	f.Add("# c\n# d\n1 0 a x\n\n", true, 8)
	f.Add("1 0 a 1\n1 0 b 0 x\n", false, 4)
	f.Add("# c\n# x y z\n q\t0 d -2\r\n", true, 5)
	f.Add("1 0 a 1\n1 0 ddddddddddddddddddddddddddddddddddddddddddddddddddddddddd 12\n", false, 1023) // a line's window at the end of the data
	f.Fuzz(func(t *testing.T, input string, lenient bool, size int) {
		checkQrels(t, input, lenient, 1+size&1023)
	})
}

// checkQrels reads input with ReadQrels and ReadQrelsGroups in blocks of
// size bytes and checks both against referenceQrels.
func checkQrels(t *testing.T, input string, lenient bool, size int) {
	t.Helper()
	defer func(n int) { blockSize = n }(blockSize)
	blockSize = size
	var got, lines []string
	err := ReadQrels(strings.NewReader(input), Options{Lenient: lenient, Workers: 2}, func(l QrelsLine) error {
		got = append(got, fmt.Sprintf("%s/%s/%s/%d/%d", l.Query, l.Iter, l.Doc, l.Grade, l.Line))
		lines = append(lines, groupLine(l.Query, l.Doc, l.Grade, l.Line))
		return nil
	})
	want, ok := referenceQrels(input, lenient)
	if (err == nil) != ok {
		t.Fatalf("error %v, reference ok %v", err, ok)
	}
	if err == nil && !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	groups, gerr := qrelsByGroups(input, Options{Lenient: lenient, Workers: 2})
	if fmt.Sprint(gerr) != fmt.Sprint(err) {
		t.Fatalf("ReadQrelsGroups: error %v, ReadQrels %v", gerr, err)
	}
	if err == nil && !slices.Equal(groups, lines) {
		t.Fatalf("ReadQrelsGroups: got %q\nwant %q", groups, lines)
	}
}

// FuzzQueryLoops checks that the loops that read the lines of a query
// read any input exactly as the usual path does: the same queries, values,
// line numbers and problems, runs and qrels, strict and lenient, in blocks
// of any size.
func FuzzQueryLoops(f *testing.F) {
	long := strings.Repeat("d", 40)
	f.Add("q Q0 "+long+"1 1 2.5 t\nq Q0 "+long+"2 2 1.25 t\nq Q0 "+long+"3 3 1 t\nq Q0 "+long+"4 4 0.5 t\n", false, 1023)
	f.Add("q1\tQ0\t"+long+"1\t1\t2.5\tt\nq1 Q0 "+long+"2 123456789 1 t\nq1 Q0 "+long+"3 -3 1e3 t\n#c\nq1 Q0 "+long+"4 4 x t\n", true, 100)
	f.Add("1 0 "+long+"a 1\n1 0 "+long+"b 0\n1 0 "+long+"c 12\n# c\n# 1 0 d\n1 0 "+long+"e -1\n1 00 "+long+"f 2\n", true, 64)
	f.Add("10 0 "+long+"a 1\n1 0 "+long+"b 0\n100 0 "+long+"c 1\n100 0 "+long+"d +2\n100 0 "+long+"e 3\r\n100 0 "+long+"f 3\n", false, 1023)
	f.Add("7 0 "+long+"a 1\n7 0 "+long+"b 0\n7 0 "+long+"c 12\n7 0 "+long+"d 3\n7 00 "+long+"e 2\n77 0 "+long+"f 1\n", false, 1023)
	f.Fuzz(func(t *testing.T, input string, lenient bool, size int) {
		defer func(n int) { blockSize = n }(blockSize)
		blockSize = 1 + size&1023
		// What was read, or the problems: where there are some, what was
		// delivered before they were found depends on the parsers' timing.
		outcome := func(v any, err error) string {
			if err != nil {
				return err.Error()
			}
			return fmt.Sprint(v)
		}
		read := func() string {
			opt := Options{Lenient: lenient, Workers: 2}
			runs, rerr := readAll(t, input, opt)
			var qrels []string
			qerr := ReadQrels(strings.NewReader(input), opt, func(l QrelsLine) error {
				qrels = append(qrels, fmt.Sprintf("%s/%s/%s/%d/%d", l.Query, l.Iter, l.Doc, l.Grade, l.Line))
				return nil
			})
			groups, gerr := qrelsByGroups(input, opt)
			return strings.Join([]string{outcome(runs, rerr), outcome(qrels, qerr), outcome(groups, gerr)}, "\n")
		}
		with := read()
		defer func() { queryLoops = true }()
		queryLoops = false
		if without := read(); with != without {
			t.Fatalf("with the loops:\n%s\nwithout:\n%s", with, without)
		}
	})
}

// TestReadQrelsValues_random reads qrels in the usual shape with the cases
// the fast path of a query's lines must leave to the usual one (query ids
// and iters that share their first eight bytes or are prefixes of one
// another, grades of nine digits or with a sign, comments and the line
// after a comment, tabs, lines past 64 bytes), in blocks of many sizes,
// against a reading of each line on its own; then files whose last line
// ends the data with its fields at every position of its window.
func TestReadQrelsValues_random(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ids := []string{"1", "10", "100", "abcdefgh", "abcdefgh1", "abcdefghijklmnop", "q"}
	iters := []string{"0", "Q0", "00", "iteriter", "iteriter0"}
	grades := []string{"0", "1", "12", "12345678", "123456789", "-1", "+2", "007"}
	var b strings.Builder
	for q := range 60 {
		id, iter := ids[q%len(ids)], iters[rng.IntN(len(iters))]
		for range 1 + rng.IntN(30) {
			switch rng.IntN(40) {
			case 0:
				b.WriteString("# a comment\n")
			case 1:
				b.WriteString("# a comment\n# " + id + " 0 d\n") // data after a comment, where lenient
			}
			if rng.IntN(20) == 0 {
				iter = iters[rng.IntN(len(iters))]
			}
			sep := " "
			if rng.IntN(10) == 0 {
				sep = "\t"
			}
			doc := "doc" + strings.Repeat("d", rng.IntN(3)*rng.IntN(40)) + strconv.Itoa(rng.IntN(1e6))
			b.WriteString(strings.Join([]string{id, iter, doc, grades[rng.IntN(len(grades))]}, sep) + "\n")
		}
	}
	lenientInput := b.String()
	strictInput := regexp.MustCompile(`(?m)^#.*\n`).ReplaceAllString(strings.ReplaceAll(lenientInput, " +2\n", " 2\n"), "")
	for _, size := range []int{64, 100, 333, 1000, 1 << 20} {
		checkQrels(t, lenientInput, true, size)
		checkQrels(t, strictInput, false, size)
	}
	for doc := 1; doc <= 60; doc++ {
		for _, grade := range []string{"1", "12345678", "-3"} {
			input := "q 0 a 1\nq 0 " + strings.Repeat("d", doc) + " " + grade + "\n"
			checkQrels(t, input, true, 1<<20)
			checkQrels(t, input, false, 1<<20)
		}
	}
}

// qrelsByGroups reads input with ReadQrelsGroups into groupLine strings,
// checking the shape of every group.
func qrelsByGroups(input string, opt Options) ([]string, error) {
	var got []string
	err := ReadQrelsGroups(strings.NewReader(input), opt, func(g *QrelsGroup) error {
		if len(g.Ends) == 0 || len(g.Grades) != len(g.Ends) || len(g.Lines) != len(g.Ends) || int(g.Ends[len(g.Ends)-1]) != len(g.Docs) {
			return fmt.Errorf("malformed group %+v", g)
		}
		for i, grade := range g.Grades {
			got = append(got, groupLine(g.Query, g.Doc(i), grade, g.Lines[i]))
		}
		return nil
	})
	return got, err
}

// groupLine writes what ReadQrelsGroups keeps of a line, its fields
// separated by spaces (which no field holds).
func groupLine(query, doc string, grade, line int) string {
	return fmt.Sprintf("%s %s %d %d", query, doc, grade, line)
}

// benchRun builds a grouped run of nq queries with nd docs each, shaped like
// the benchmark runs.
func benchRun(nq, nd int) []byte {
	var b bytes.Buffer
	for q := range nq {
		for d := range nd {
			fmt.Fprintf(&b, "%d Q0 msmarco_passage_%02d_%d %d %.6f bigrun\n", q*7919, d%69, q*nd+d, d+1, 20-float64(d)/100)
		}
	}
	return b.Bytes()
}

// BenchmarkReadRun reads a run as ragstat eval does (strict, one pass);
// BenchmarkReadRunLenient as ragstat trec-eval does.
func BenchmarkReadRun(b *testing.B)        { benchReadRun(b, Options{Redeliver: true}) }
func BenchmarkReadRunLenient(b *testing.B) { benchReadRun(b, Options{Lenient: true, Redeliver: true}) }

func benchReadRun(b *testing.B, opt Options) {
	data := benchRun(200, 1000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		err := ReadRun(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
			opt, func(*RunQuery) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadQrels(b *testing.B) {
	var buf bytes.Buffer
	for i := range 200000 {
		fmt.Fprintf(&buf, "%d 0 msmarco_passage_%02d_%d %d\n", i/100, i%69, i, i%4)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := ReadQrels(bytes.NewReader(data), Options{}, func(QrelsLine) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAtof(b *testing.B) {
	in := []byte("12.345678")
	for b.Loop() {
		Atof(in)
	}
}

func TestByteMasks(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			w := uint64(c) << (8 * pos)
			for k := range 8 {
				if k != pos {
					w |= uint64('a'+k) << (8 * k) // neighbours that are neither
				}
			}
			bit := uint64(0x80) << (8 * pos)
			if got := spaceBytes(w) != 0; got != isSpace[c] || spaceBytes(w)&^bit != 0 {
				t.Errorf("spaceBytes: byte %#x at %d: mask %#x", c, pos, spaceBytes(w))
			}
			if got := zeroBytes(w) != 0; got != (c == 0) || zeroBytes(w)&^bit != 0 {
				t.Errorf("zeroBytes: byte %#x at %d: mask %#x", c, pos, zeroBytes(w))
			}
		}
	}
}

// TestMasks checks masks64 (the vector form where the processor has it)
// and masksSWAR against a byte-by-byte reading: every byte value at every
// position of a window, among random neighbours, then random windows.
func TestMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(b []byte) {
		t.Helper()
		var want [3]uint64
		for i, c := range b {
			for j, in := range []bool{c <= ' ', c == ' ' || c == '\t', c == '\n'} {
				if in {
					want[j] |= 1 << i
				}
			}
		}
		for name, f := range map[string]func(*byte) (uint64, uint64, uint64){"masks64": masks64, "masksSWAR": masksSWAR} {
			if low, blank, newline := f(&b[0]); [3]uint64{low, blank, newline} != want {
				t.Fatalf("%s(%q) = %#x %#x %#x, want %#x", name, b, low, blank, newline, want)
			}
		}
	}
	b := make([]byte, 64)
	for pos := range 64 {
		for c := range 256 {
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			b[pos] = byte(c)
			check(b)
		}
	}
	for range 10000 {
		for i := range b {
			b[i] = byte(rng.Uint32() % 64) // many bytes up to ' ' and around it
			if rng.Uint32()%2 == 0 {
				b[i] += 0x1f
			}
		}
		check(b)
	}
}

func TestSplit(t *testing.T) {
	for _, s := range []string{"", " ", "a", "abc def", "  abcdefghij klm  ", "abc\x01defghijkl\tx", "0123456789abcdef\vx",
		"\xff\xfe\xa1\xa0abcdefgh ij", "a\x1fb\x7fc\x80d\xa1e\x20", "1 2 3 4 5 6 7 8 9", "q1\t\tQ0  d1 \r1 2.5\ttag\r"} {
		want := strings.FieldsFunc(s, func(r rune) bool { return r < 256 && isSpace[byte(r)] })
		var p lineParser
		line, n, rest := p.next([]byte(s + "\nnext"))
		if string(line) != s || string(rest) != "next" {
			t.Errorf("next(%q) = line %q, rest %q", s, line, rest)
		}
		got := make([]string, min(n, maxFields))
		for i := range got {
			got[i] = string(p.f[i])
		}
		if n != len(want) || !slices.Equal(got, want[:len(got)]) {
			t.Errorf("split(%q) = %d %q, want %q", s, n, got, want)
		}
	}
}

// TestSplitLines: lines split one after another, on the fast path or not,
// come out as strings.FieldsFunc splits them, whatever their length and
// wherever they fall in the scanner's 64-byte windows.
func TestSplitLines(t *testing.T) {
	lines := []string{"q1 Q0 d1 1 2.5 tag", "q1\tQ0\td1\t1\t2.5\ttag", "", " ", "q1 Q0 d1 1 2.5", "q1 Q0 d1 1 2.5 tag x",
		"q1  Q0 d1 1 2.5 tag", " q1 Q0 d1 1 2.5 tag", "q1 Q0 d1 1 2.5 tag ", "q1 Q0 d1 1 2.5 tag\r", "q1 Q0 d\x01 1 2.5 tag",
		"q1 Q0 d\v1 1 2.5 tag", "# a comment", "q 0 d 1", "q 0 d 1 ", "q\x7f 0 d\xa0 1", strings.Repeat("long", 40) + " Q0 d 1 2 t",
		"q Q0 " + strings.Repeat("d", 70) + " 1 2 t", "1 2 3 4 5 6 7 8 9"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 { // random fields of random length, mostly in the usual shape
		var b strings.Builder
		for j := range 4 + rng.IntN(4) {
			if j > 0 || rng.IntN(20) == 0 {
				for range 1 + rng.IntN(2)*rng.IntN(2) {
					b.WriteByte(" \t \t \t \t \v\r\x01"[rng.IntN(11)])
				}
			}
			b.WriteString(strings.Repeat("x", 1+rng.IntN(40)))
		}
		lines = append(lines, b.String())
	}
	for _, k := range []int{4, 6} {
		for _, last := range []string{"", "\n"} {
			data := []byte(strings.Join(lines, "\n") + last)
			var p lineParser
			p.begin(data)
			off := 0
			for i, want := range lines {
				line, n, end := p.split(off, k)
				fields := strings.FieldsFunc(want, func(r rune) bool { return r < 256 && isSpace[byte(r)] })
				got := make([]string, min(n, maxFields))
				for j := range got {
					got[j] = string(p.f[j])
				}
				if string(line) != want || n != len(fields) || !slices.Equal(got, fields[:len(got)]) {
					t.Fatalf("k %d, line %d %q: got line %q, %d fields %q", k, i, want, line, n, got)
				}
				off = end
			}
			if off != len(data) {
				t.Fatalf("k %d: ended at %d of %d", k, off, len(data))
			}
		}
	}
}

// TestFastDecimal: the fast parser agrees with strconv.ParseFloat on every
// number it accepts, refuses what is not a plain decimal, and accepts the
// usual shapes whatever the bytes after them.
func TestFastDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789012345678901234567890123456789..-+e x/:"
	for i := range 200000 {
		var b []byte
		for range rng.IntN(20) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		if i%2 == 0 { // a score as TREC runs write them
			b = fmt.Appendf(nil, "%.*f", rng.IntN(10), rng.Float64()*math.Pow(10, float64(rng.IntN(9))))
		}
		in := append(b[:len(b):len(b)], " \n9.99999999999999999"[:rng.IntN(20)]...)[:len(b)] // bytes after it, or none
		got, ok := fastDecimal(in)
		want, err := strconv.ParseFloat(string(b), 64)
		plain := isDecimal(b) && !bytes.ContainsAny(b, "eE")
		switch {
		case ok && (err != nil || got != want || math.Signbit(got) != math.Signbit(want)):
			t.Fatalf("fastDecimal(%q) = %v, want %v (%v)", b, got, want, err)
		case ok && !plain:
			t.Fatalf("fastDecimal(%q) accepted", b)
		case !ok && plain && len(bytes.TrimLeft(b, "+-0")) <= 15:
			t.Fatalf("fastDecimal(%q) refused", b)
		}
	}
}

func TestParseInt(t *testing.T) {
	// each also with bytes after it, which the eight-byte path reads
	padded := func(in string) []byte { return append([]byte(in), " 2.5 t\n1 Q0"...)[:len(in)] }
	for in, want := range map[string]int{"0": 0, "7": 7, "12345678": 12345678, "123456789": 123456789, "1234567890": 1234567890, "-5": -5, "007": 7} {
		for _, b := range [][]byte{[]byte(in), padded(in)} {
			if got, ok := parseInt(b); !ok || got != want {
				t.Errorf("parseInt(%q) = %d, %v", in, got, ok)
			}
		}
	}
	for _, in := range []string{"", "12a", "1.0", "x", "- 1", "+5", "1_0", "0x10", "1234567:", "/", "1\x00"} {
		for _, b := range [][]byte{[]byte(in), padded(in)} {
			if _, ok := parseInt(b); ok {
				t.Errorf("parseInt(%q) accepted", in)
			}
		}
	}
}

// TestParseScoreStrict: a strict score is a plain decimal; Go's and C's
// other spellings are refused (trec-eval's lenient mode keeps atof).
func TestParseScoreStrict(t *testing.T) {
	for in, want := range map[string]float64{"1": 1, "-2.5": -2.5, "+3": 3, ".5": 0.5, "5.": 5, "1e-3": 0.001, "12345678901234567890.5": 12345678901234567890.5, "2E+2": 200} {
		if got, ok := parseScore([]byte(in)); !ok || got != want {
			t.Errorf("parseScore(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"1_0", "0x1p3", "0X10", "inf", "Infinity", "nan", "1e", "e5", ".", "-", "1e999", "1.2.3", "١"} {
		if v, ok := parseScore([]byte(in)); ok {
			t.Errorf("parseScore(%q) = %v, accepted", in, v)
		}
	}
	if got := Atof([]byte("0x1p3")); got != 8 {
		t.Errorf("Atof keeps C's reading: 0x1p3 = %v", got)
	}
}

// TestLastQueryStart checks queryCut's quick path against the line-by-line
// walk on random blocks of a few query ids, comments, blank lines and lines
// with leading spaces or tabs.
func TestLastQueryStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lines := []string{"q1 Q0 d 1 2 r\n", "q1\tQ0 d 1 2 r\n", "q2 Q0 d 1 2 r\n", "q10 Q0 d 1 2 r\n",
		" q1 Q0 d 1 2 r\n", "# q1\n", "\n", "q1 Q0 " + strings.Repeat("long", 300) + " 1 2 r\n"}
	quick := 0
	for range 2000 {
		var b []byte
		for n := rng.IntN(60); n >= 0; n-- {
			line := lines[rng.IntN(len(lines))]
			for m := rng.IntN(12); m >= 0; m-- {
				b = append(b, line...)
			}
		}
		got := lastQueryStart(b)
		if got > 0 {
			quick++
			if want := queryCutWalk(b); got != want {
				t.Fatalf("lastQueryStart = %d, the walk %d, on %q", got, want, b)
			}
		}
	}
	if quick == 0 {
		t.Fatal("the quick path never answered")
	}
}
