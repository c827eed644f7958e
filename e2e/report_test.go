package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/topics"
)

const chromium = "/usr/bin/chromium"

// browser starts a headless Chromium that works offline and as root; it
// skips when Chromium is absent, unless CI is set.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("chromium missing: %v", err)
		}
		t.Skipf("skipped: %s needs Debian's chromium: %v", t.Name(), err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true), chromedp.WindowSize(1280, 1000))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// comparison compares two candidates with a base over 30 queries: "better"
// gains on every query but the last ten (tag:hard), where it loses.
func comparison(t *testing.T) *compare.Result {
	t.Helper()
	tab := &compare.Table{Metrics: []string{"nDCG@10", "R@10"}}
	var hard []int
	sys := func(name string, move func(q int) float64) compare.System {
		s := compare.System{Name: name, Values: make([][]float64, 2)}
		for q := range 30 {
			for m := range 2 {
				s.Values[m] = append(s.Values[m], 0.4+0.01*float64(q%5)+move(q)/float64(m+1))
			}
			s.Rankings = append(s.Rankings, compare.Ranking{
				Top:      []compare.Item{{ID: "p" + strconv.Itoa(q), Rank: 1, Grade: q % 4, Judged: true}, {ID: "x", Rank: 2}},
				Relevant: []compare.Item{{ID: "gold", Rank: 1 + q%3, Grade: 3, Judged: true}},
			})
		}
		return s
	}
	for q := range 30 {
		tab.Queries = append(tab.Queries, fmt.Sprintf("q%02d", q))
		tab.Text = append(tab.Text, fmt.Sprintf("question number %d", q))
		if q >= 20 {
			hard = append(hard, q)
		}
	}
	tab.Systems = []compare.System{
		sys("base", func(int) float64 { return 0 }),
		sys("better", func(q int) float64 {
			if q >= 20 {
				return -0.15
			}
			return 0.12 + 0.01*float64(q%3)
		}),
		sys("worse", func(q int) float64 { return -0.05 - 0.01*float64(q%4) }),
	}
	r, err := compare.Compare(tab, compare.Options{Stats: stats.Options{Seed: 3, Resamples: 1000, Randomizations: 1000},
		Top: 5, Slices: []topics.Slice{{Name: "tag:hard", Queries: hard}, {Name: "tag:tiny", Queries: hard[:3]}}})
	if err != nil {
		t.Fatal(err)
	}
	r.Manifest = &eval.Manifest{Kind: eval.KindCompare, Version: "test", Policy: eval.DefaultPolicy(), Metrics: tab.Metrics,
		Queries: eval.DigestQueries(tab.Queries)}
	return r
}

// TestCompareReport opens the HTML report of a comparison in Chromium,
// checks what it says, sorts the summary by difference, filters the slice
// table, picks another chart and saves a screenshot.
func TestCompareReport(t *testing.T) {
	ctx := browser(t)
	r := comparison(t)
	dir := t.TempDir()
	saved := filepath.Join(dir, "compare.json")
	f, err := os.Create(saved)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f) // the bytes ragstat compare --format json writes
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	var stderr strings.Builder
	cmd := exec.Command(buildRagstat(t), "report", saved)
	cmd.Stderr = &stderr
	html, err := cmd.Output()
	if err != nil {
		t.Fatalf("ragstat report: %v\n%s", err, stderr.String())
	}
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil || !strings.Contains(title, "base vs better, worse") {
		t.Errorf("title %q, %v", title, err)
	}
	alerts, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("alerts")))
	if err != nil || !strings.Contains(alerts, "better regresses on nDCG@10 in slice tag:hard") || !strings.Contains(alerts, "IMPROVES") {
		t.Errorf("alerts %q, %v", alerts, err)
	}
	tiny, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("slice-table")))
	if err != nil || !strings.Contains(tiny, "tag:tiny too small") {
		t.Errorf("slice table lacks the too-small mark: %q, %v", tiny, err)
	}
	column := `Array.from(document.querySelectorAll("#summary-table tbody tr")).map(r => r.cells[4].textContent)`
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#summary-table th:nth-child(5)"))); err != nil {
		t.Fatal(err)
	}
	diffs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](column))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range r.Comparisons {
		want = append(want, fmt.Sprintf("%+.4f", c.MeanDiff))
	}
	slices.SortFunc(want, func(a, b string) int {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return int(x*1e6 - y*1e6)
	})
	if !slices.Equal(diffs, want) {
		t.Errorf("sorted by diff: %v, want %v", diffs, want)
	}
	visible := `Array.from(document.querySelectorAll("#slice-table tbody tr")).filter(r => !r.hidden).length`
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`input[data-table="slice-table"]`), "tiny")); err != nil {
		t.Fatal(err)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](visible)); err != nil || n != 4 {
		t.Errorf("filtered slice rows: %d (%v), want 4", n, err)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("pick"), "p3"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("pick").dispatchEvent(new Event("change"))`)); err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(".panel")).filter(p => !p.hidden).map(p => p.id)`))
	if err != nil || !slices.Equal(shown, []string{"p3"}) {
		t.Errorf("panels shown %v (%v), want [p3]", shown, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.TempDir(), "report.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}
