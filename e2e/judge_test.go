package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/assess"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/topics"
)

const hostile = `Refunds take 30 days. <script>window.pwned=1</script><img src=x onerror="window.pwned=2">`

// judgeApp serves the assessment app over loopback on a fresh database: one
// query with facts and four passages, one of them hostile markup.
func judgeApp(t *testing.T) (string, *assess.DB, *assess.Task) {
	t.Helper()
	passages := map[string]string{
		"policy":   "Refunds are issued within 30 days of purchase to the original payment method.",
		"faq":      "How long does a refund take? Most refunds arrive in 5 to 10 business days.",
		"shipping": "Return shipping is paid by the customer unless the item was damaged.",
		"hostile":  hostile,
	}
	var c strings.Builder
	var items []string
	for _, id := range []string{"policy", "faq", "shipping", "hostile"} {
		b, _ := json.Marshal(map[string]string{"id": id, "text": passages[id]})
		c.Write(append(b, '\n'))
		items = append(items, id)
	}
	cs, err := corpus.Read(input.FromBytes("corpus.jsonl", []byte(c.String())))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := topics.Read(input.FromBytes("topics.jsonl", []byte(
		`{"id":"refund","text":"How long does a refund take?","facts":[{"id":"days","text":"the number of days","support":[{"item":"faq"}]}]}`+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := pool.Build([]pool.Ranking{{System: "bm25", Query: "refund", Items: items}}, pool.Options{Depth: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := assess.NewTask("queue.jsonl", res.Queue, cs, ts)
	if err != nil {
		t.Fatal(err)
	}
	db, err := assess.Open(filepath.Join(t.TempDir(), "judgments.db"), assess.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := assess.New(ln, assess.Config{Store: db, Task: tk})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return strings.TrimSuffix(s.URL(), "/"), db, tk
}

// pageOrder waits until a grading page other than after has loaded and
// returns its queue order.
func pageOrder(t *testing.T, ctx context.Context, after string) string {
	t.Helper()
	const js = `document.readyState === "complete" && document.querySelector("main[data-order]") ? document.querySelector("main").dataset.order : ""`
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if o, err := chromedp.Run(ctx, chromedp.Evaluate[string](js)); err == nil && o != "" && o != after {
			return o
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no new grading page after %q", after)
	return ""
}

// openEntry opens ann's grading page of item's entry in tk, waits for it
// to load and returns the entry's queue order.
func openEntry(t *testing.T, ctx context.Context, base string, tk *assess.Task, item string) int {
	t.Helper()
	var order int
	for _, e := range tk.Entries {
		if e.Item == item {
			order = e.Order
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/a/ann/e/%d", base, order))); err != nil {
		t.Fatal(err)
	}
	pageOrder(t, ctx, "")
	return order
}

// waitSaved waits for a page whose saved message starts with prefix.
func waitSaved(t *testing.T, ctx context.Context, prefix string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		saved, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState === "complete" && document.getElementById("saved") ? document.getElementById("saved").textContent : ""`))
		if strings.HasPrefix(saved, prefix) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no page says %q (last: %q)", prefix, saved)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestJudgeInBrowser(t *testing.T) {
	ctx := browser(t)
	base, db, tk := judgeApp(t)

	// Sign in.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.SendKeys(chromedp.ID("name"), "ann"),
		chromedp.Click(chromedp.CSS(`form.start button`))); err != nil {
		t.Fatal(err)
	}
	// Grade three passages with the keyboard: 2, 3, 0.
	order := pageOrder(t, ctx, "")
	graded := map[string]string{}
	for _, key := range []string{"2", "3", "0"} {
		graded[order] = key
		if err := chromedp.Do(ctx, chromedp.KeyEvent(key)); err != nil {
			t.Fatal(err)
		}
		order = pageOrder(t, ctx, order)
		saved, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("saved")))
		if err != nil || !strings.HasPrefix(saved, "Saved: grade "+key) {
			t.Fatalf("after key %s the page says %q (%v)", key, saved, err)
		}
	}
	// The hostile passage shows as text and runs nothing.
	openEntry(t, ctx, base, tk, "hostile")
	shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("passage")))
	if err != nil || strings.TrimSpace(shown) != hostile {
		t.Errorf("the hostile passage shows as %q (%v)", shown, err)
	}
	if pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.pwned !== undefined || document.querySelector("#passage img, #passage script") !== null`)); err != nil || pwned {
		t.Errorf("the passage's markup ran or was parsed: %v %v", pwned, err)
	}
	// Mark a span for the fact "days" on the faq passage: select the text,
	// pick the fact, press m.
	faqOrder := openEntry(t, ctx, base, tk, "faq")
	const sel = `(() => {
		const node = document.getElementById("passage").firstChild;
		const start = node.textContent.indexOf("5 to 10 business days");
		const r = document.createRange();
		r.setStart(node, start); r.setEnd(node, start + "5 to 10 business days".length);
		const s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
		return s.toString();
	})()`
	if picked, err := chromedp.Run(ctx, chromedp.Evaluate[string](sel)); err != nil || picked != "5 to 10 business days" {
		t.Fatalf("selection %q: %v", picked, err)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("span-fact"), "days"), chromedp.KeyEvent("m")); err != nil {
		t.Fatal(err)
	}
	waitSaved(t, ctx, "Saved the span.")
	if err := chromedp.Do(ctx, chromedp.KeyEvent("3")); err != nil { // grade it too
		t.Fatal(err)
	}
	waitSaved(t, ctx, "Saved: grade 3")
	graded[fmt.Sprint(faqOrder)] = "3"

	// Reload every graded page: the grades are kept.
	for o, g := range graded {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+"/a/ann/e/"+o), chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		pageOrder(t, ctx, "")
		cur, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("current")))
		if err != nil || cur != "your grade: "+g {
			t.Errorf("entry %s after reload: %q (%v), want grade %s", o, cur, err, g)
		}
	}
	openEntry(t, ctx, base, tk, "faq")
	spans, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("span-list")))
	if err != nil || !strings.Contains(spans, "5 to 10 business days") || !strings.Contains(spans, "for days") {
		t.Errorf("spans after reload: %q (%v)", spans, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: a PNG
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if d := os.Getenv("RAGSTAT_SCREENSHOT_DIR"); d != "" {
		dir = d
	}
	shotPath := filepath.Join(dir, "judge.png")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shotPath)

	exportAndEvaluate(t, db, graded, tk)
}

// exportAndEvaluate exports ann's grades as JSONL and evaluates a run of the
// graded items with ragstat's evaluator, reading the export as it is.
func exportAndEvaluate(t *testing.T, db *assess.DB, graded map[string]string, tk *assess.Task) {
	t.Helper()
	var buf bytes.Buffer
	n, err := assess.Export(context.Background(), db, &buf, assess.ExportOptions{Format: "jsonl", Assessor: "ann"})
	if err != nil || n != len(graded) {
		t.Fatalf("exported %d judgments (%v), graded %d", n, err, len(graded))
	}
	if !strings.Contains(buf.String(), `"spans":["5 to 10 business days"],"facts":["days"]`) {
		t.Errorf("the export lacks the span:\n%s", buf.String())
	}
	qrels, err := judgments.Read(input.FromBytes("export.jsonl", buf.Bytes()), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := metric.ParseAll([]string{"nDCG@10", "R@10"})
	ev, err := eval.New(qrels, eval.DefaultPolicy(), ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	for o := range graded {
		var order int
		fmt.Sscan(o, &order)
		items = append(items, fmt.Sprintf("%q", tk.ByOrder(order).Item))
	}
	run := `{"query":"refund","items":[` + strings.Join(items, ",") + `]}` + "\n"
	res, err := ev.Run("run", input.FromBytes("run.jsonl", []byte(run)), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Mean[1] != 1 {
		t.Errorf("evaluating the export: %+v", res)
	}
}
