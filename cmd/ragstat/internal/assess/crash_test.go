package assess

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragstat/ragstat/internal/childtest"
)

const childEnv = "RAGSTAT_ASSESS_CRASH_CHILD"

// TestCrashChild is the server process of TestCrash: it runs only when
// re-executed with the database path in its environment.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("runs as TestCrash's server process")
	}
	db, err := Open(path, OpenOptions{Create: true})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	err = Run(context.Background(), db, task(t, 50), RunOptions{Out: os.Stdout})
	fmt.Println("serve:", err)
	os.Exit(4)
}

type child struct {
	*childtest.Child
	url string
}

var openLine = regexp.MustCompile(`Open (http://\S+)`)

func startChild(t *testing.T, path string) *child {
	t.Helper()
	c := childtest.Start(t, "TestCrashChild", childEnv, path, openLine)
	return &child{c, strings.TrimSuffix(c.Match[1], "/")}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// TestCrash kills the server with SIGKILL in the middle of a stream of
// grades from four assessors, restarts it on the same database and checks
// that every grade the server had acknowledged (answered 303) is there
// with the value sent.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	c := startChild(t, path)
	tk := task(t, 50)
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	csrf := fetchCSRF(t, client, c.url)

	var mu sync.Mutex
	acked := map[string]map[Key]int{}
	var count int
	killAt := 120
	killed := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for w := range 4 {
		who := fmt.Sprintf("w%d", w)
		acked[who] = map[Key]int{}
		wg.Go(func() {
			for i, e := range tk.Entries {
				g := (i + w) % 4
				form := url.Values{"csrf": {csrf}, "query": {e.Query}, "item": {e.Item}, "grade": {strconv.Itoa(g)}}
				resp, err := client.PostForm(c.url+"/a/"+who+"/e/"+strconv.Itoa(e.Order), form)
				if err != nil {
					return // the server is gone: this grade was not acknowledged
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusSeeOther {
					return
				}
				mu.Lock()
				acked[who][e.Key()] = g
				count++
				if count >= killAt {
					once.Do(func() { close(killed) })
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-killed:
	case <-time.After(60 * time.Second):
		t.Fatal("the grades did not arrive in 60 s")
	}
	c.Kill(t) // requests are still in flight
	wg.Wait()

	c = startChild(t, path)
	if loc := redirect(t, client, c.url+"/a/w0/next"); !strings.HasPrefix(loc, "/a/w0/") {
		t.Errorf("the restarted server resumes w0 at %q", loc)
	}
	c.Kill(t)

	db, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	total := 0
	for who, grades := range acked {
		w := work(t, db, who)
		for k, g := range grades {
			total++
			if got, ok := w.Grades[k]; !ok || got.Grade != g {
				t.Errorf("%s %v: acknowledged grade %d, stored %+v (present %v)", who, k, g, got, ok)
			}
		}
	}
	if total < killAt {
		t.Errorf("only %d grades acknowledged", total)
	}
	t.Logf("%d acknowledged grades survived SIGKILL", total)
}

func fetchCSRF(t *testing.T, client *http.Client, base string) string {
	t.Helper()
	resp, err := client.Get(base + "/a/w0/e/1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := csrfField.FindSubmatch(b)
	if m == nil {
		t.Fatalf("no form token on the page (%d)", resp.StatusCode)
	}
	return string(m[1])
}

func redirect(t *testing.T, client *http.Client, u string) string {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("Location")
}
