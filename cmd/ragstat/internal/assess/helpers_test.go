package assess

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/topics"
)

// xss is a passage that would run script if it were not escaped.
const xss = `Refunds take 30 days. <script>window.pwned=1</script><img src=x onerror="window.pwned=2"> "quoted" & done`

// fixture makes a corpus of n passages, two topics (one with facts) and a
// queue of every passage for the first topic and a few for the second.
func fixture(t testing.TB, n int) (*corpus.Corpus, *topics.Set, []pool.Entry) {
	t.Helper()
	var c, q strings.Builder
	for i := range n {
		text := fmt.Sprintf("Passage %d about refunds: refunds take %d days to arrive.", i, 10+i%20)
		if i == 0 {
			text = xss
		}
		b, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("p%d", i), "text": text})
		c.Write(b)
		c.WriteByte('\n')
	}
	cs, err := corpus.Read(input.FromBytes("corpus.jsonl", []byte(c.String())))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := topics.Read(input.FromBytes("topics.jsonl", []byte(
		`{"id":"refund","text":"How long do refunds take? <b>bold</b>","facts":[{"id":"days","text":"the number of days","support":[{"item":"p1"}]},{"id":"who","text":"who pays","support":[{"item":"p2"}]}]}`+"\n"+
			`{"id":"limits","text":"What are the limits?"}`+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	order := 1
	for i := range n {
		fmt.Fprintf(&q, `{"query":"refund","item":"p%d","systems":["bm25"],"order":%d}`+"\n", i, order)
		order++
	}
	for i := range min(n, 3) {
		fmt.Fprintf(&q, `{"query":"limits","item":"p%d","systems":["dense"],"order":%d}`+"\n", i, order)
		order++
	}
	entries, err := pool.ReadQueue(input.FromBytes("queue.jsonl", []byte(q.String())))
	if err != nil {
		t.Fatal(err)
	}
	return cs, ts, entries
}

func task(t testing.TB, n int) *Task {
	t.Helper()
	cs, ts, q := fixture(t, n)
	tk, err := NewTask("queue.jsonl", q, cs, ts)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func openDB(t testing.TB, path string) *DB {
	t.Helper()
	db, err := Open(path, OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// clock is an injected clock that moves one second a call.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

type app struct {
	srv    *Server
	ts     *httptest.Server
	db     *DB
	task   *Task
	client *http.Client // follows no redirects
}

// start serves a fresh database over loopback.
func start(t testing.TB, n int, token string) *app {
	t.Helper()
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	return startWith(t, db, task(t, n), token)
}

func startWith(t testing.TB, db *DB, tk *Task, token string) *app {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s, err := New(ln, Config{Store: db, Task: tk, Token: token, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &app{srv: s, ts: ts, db: db, task: tk, client: client}
}

// post sends a form for entry order as assessor who.
func (a *app) post(t testing.TB, who string, order int, path string, form url.Values) *http.Response {
	t.Helper()
	e := a.task.ByOrder(order)
	if form.Get("csrf") == "" {
		form.Set("csrf", a.srv.csrf)
	}
	if form.Get("query") == "" {
		form.Set("query", e.Query)
		form.Set("item", e.Item)
	}
	resp, err := a.client.PostForm(a.ts.URL+"/a/"+url.PathEscape(who)+"/e/"+strconv.Itoa(order)+path, form)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func (a *app) grade(t testing.TB, who string, order, grade int) *http.Response {
	t.Helper()
	return a.post(t, who, order, "", url.Values{"grade": {strconv.Itoa(grade)}})
}

// get fetches a page and returns its status and body.
func (a *app) get(t testing.TB, path string) (int, string) {
	t.Helper()
	resp, err := a.client.Get(a.ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func work(t testing.TB, db Store, who string) *Work {
	t.Helper()
	w, err := db.Work(context.Background(), who)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// syncWriter is a strings.Builder safe to write from a server goroutine.
type syncWriter struct{ b *strings.Builder }

func (w *syncWriter) Write(p []byte) (int, error) {
	syncMu.Lock()
	defer syncMu.Unlock()
	return w.b.Write(p)
}

var syncMu sync.Mutex

func readSync(b *strings.Builder) string {
	syncMu.Lock()
	defer syncMu.Unlock()
	return b.String()
}
