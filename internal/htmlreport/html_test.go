package htmlreport

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/demo"
	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/stats"
)

// external finds anything a page could fetch: a URL other than the SVG
// namespace, a linked stylesheet or a script source.
var external = regexp.MustCompile(`https?://(?:[^w]|w[^w]|ww[^w]|www\.[^w])|<link|\ssrc=`)

func TestCompare(t *testing.T) {
	tab := &compare.Table{Queries: []string{"a", "b", "c"}, Metrics: []string{"nDCG@10"}, Text: []string{"<script>x</script>", "", ""},
		Systems: []compare.System{{Name: "base", Values: [][]float64{{0.5, 0.2, 0.9}}}, {Name: "cand", Values: [][]float64{{0.1, 0.4, 0.9}}}}}
	r, err := compare.Compare(tab, compare.Options{Stats: stats.Options{Seed: 1, Resamples: 100}})
	if err != nil {
		t.Fatal(err)
	}
	r.Manifest = &manifest.Manifest{Kind: manifest.KindCompare, Judgments: &manifest.File{Role: "judgments", Path: "q.txt", SHA256: "abc"}}
	r.Notes = append(r.Notes, "a note said once")
	var b bytes.Buffer
	if err := Compare(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="summary-table"`, `<path class="neg"`, "&lt;script&gt;x&lt;/script&gt;", "q.txt", "ranking not kept", "-0.4000"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if m := external.FindString(page); m != "" {
		t.Errorf("page refers outside itself: %q", m)
	}
	if n := strings.Count(page, "a note said once"); n != 1 {
		t.Errorf("the note is printed %d times", n)
	}
}

func TestEval(t *testing.T) {
	r, err := demo.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	var doc, page bytes.Buffer
	if err := report.Render(&doc, "json", r); err != nil {
		t.Fatal(err)
	}
	saved, err := report.Read(input.FromBytes("eval.json", doc.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := Eval(&page, saved); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="query-table"`, "restore", "0.8541", "<svg"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
