package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const hostile = `Refunds take 30 days. <script>window.pwned=1</script><img src=x onerror="window.pwned=2">`

// judgeTask is what the app serves: the files given to ragstat judge serve
// and the queue order of each item.
type judgeTask struct {
	dir, db string
	order   map[string]int
	item    map[int]string
	stop    func() // stops the server with SIGINT and waits for it
}

// judgeApp runs ragstat pool on one query with facts and four passages (one
// of them hostile markup), then ragstat judge serve on a fresh database over
// loopback, and returns the address the command printed.
func judgeApp(t *testing.T) (string, *judgeTask) {
	t.Helper()
	bin := buildRagstat(t)
	dir := t.TempDir()
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
	run, _ := json.Marshal(map[string]any{"query": "refund", "items": items})
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corpusFile := write("corpus.jsonl", c.String())
	topicsFile := write("topics.jsonl",
		`{"id":"refund","text":"How long does a refund take?","facts":[{"id":"days","text":"the number of days","support":[{"item":"faq"}]}]}`+"\n")
	runFile := write("run.jsonl", string(run)+"\n")
	queue := filepath.Join(dir, "queue.jsonl")
	if out, err := exec.Command(bin, "pool", "--out", queue, "--depth", "10", "--seed", "3", "bm25="+runFile).CombinedOutput(); err != nil {
		t.Fatalf("ragstat pool: %v\n%s", err, out)
	}
	tk := &judgeTask{dir: dir, db: filepath.Join(dir, "judgments.db"), order: map[string]int{}, item: map[int]string{}}
	q, err := os.ReadFile(queue)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(q)), "\n") {
		var e struct {
			Item  string `json:"item"`
			Order int    `json:"order"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("queue line %q: %v", line, err)
		}
		tk.order[e.Item], tk.item[e.Order] = e.Order, e.Item
	}

	cmd := exec.Command(bin, "judge", "serve", "--db", tk.db, "--queue", queue, "--corpus", corpusFile, "--topics", topicsFile)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ragstat judge serve after SIGINT: %v\n%s", err, stderr.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("ragstat judge serve did not stop within 20 s of SIGINT")
		}
	}
	t.Cleanup(stop)
	tk.stop = stop
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := openLine.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		close(urls)
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			t.Fatalf("ragstat judge serve printed no address:\n%s", stderr.String())
		}
		return strings.TrimSuffix(u, "/"), tk
	case <-time.After(30 * time.Second):
		t.Fatalf("ragstat judge serve printed no address within 30 s:\n%s", stderr.String())
	}
	return "", nil
}

var openLine = regexp.MustCompile(`Open (http://\S+)`)

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
func openEntry(t *testing.T, ctx context.Context, base string, tk *judgeTask, item string) int {
	t.Helper()
	order := tk.order[item]
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
	base, tk := judgeApp(t)

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

	exportAndEvaluate(t, graded, tk)
}

// exportAndEvaluate stops the app, exports ann's grades with ragstat judge
// export and evaluates a run of the graded items with ragstat eval, reading
// the export as it is.
func exportAndEvaluate(t *testing.T, graded map[string]string, tk *judgeTask) {
	t.Helper()
	tk.stop()
	bin := buildRagstat(t)
	export := filepath.Join(tk.dir, "export.jsonl")
	if out, err := exec.Command(bin, "judge", "export", "--db", tk.db, "--assessor", "ann", "--out", export).CombinedOutput(); err != nil {
		t.Fatalf("ragstat judge export: %v\n%s", err, out)
	}
	data, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != len(graded) {
		t.Fatalf("exported %d judgments, graded %d:\n%s", n, len(graded), data)
	}
	if !strings.Contains(string(data), `"spans":["5 to 10 business days"],"facts":["days"]`) {
		t.Errorf("the export lacks the span:\n%s", data)
	}
	var items []string
	for o := range graded {
		var order int
		fmt.Sscan(o, &order)
		items = append(items, fmt.Sprintf("%q", tk.item[order]))
	}
	run := filepath.Join(tk.dir, "graded.jsonl")
	if err := os.WriteFile(run, []byte(`{"query":"refund","items":[`+strings.Join(items, ",")+`]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "eval", "-j", export, "-m", "nDCG@10", "-m", "R@10", "--format", "json", "run="+run).Output()
	if err != nil {
		t.Fatalf("ragstat eval of the export: %v\n%s", err, out)
	}
	var res struct {
		Runs []struct {
			NumQueries int                `json:"num_queries"`
			Mean       map[string]float64 `json:"mean"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("eval's JSON: %v\n%s", err, out)
	}
	if len(res.Runs) != 1 || res.Runs[0].NumQueries != 1 || res.Runs[0].Mean["R@10"] != 1 {
		t.Errorf("evaluating the export: %s", out)
	}
}
