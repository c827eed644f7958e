package assess

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentAssessors: 20 assessors grade 500 passages each at the same
// time against one server over loopback. Every acknowledged grade is stored
// once, with the value sent: 10,000 grades, no duplicate, none lost. The
// test is bounded: 10,000 requests and a two-minute deadline.
func TestConcurrentAssessors(t *testing.T) {
	const assessors, each = 20, 500
	a := start(t, each-3, "") // 497 + 3 entries
	if len(a.task.Entries) != each {
		t.Fatalf("%d entries", len(a.task.Entries))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := &http.Client{
		Transport:     &http.Transport{MaxIdleConnsPerHost: assessors},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	begin := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, assessors)
	for i := range assessors {
		who := fmt.Sprintf("assessor-%02d", i)
		wg.Go(func() {
			for _, e := range a.task.Entries {
				form := url.Values{"csrf": {a.srv.csrf}, "query": {e.Query}, "item": {e.Item}, "grade": {strconv.Itoa(want(who, e))}}
				req, _ := http.NewRequestWithContext(ctx, "POST", a.ts.URL+"/a/"+who+"/e/"+strconv.Itoa(e.Order), strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				resp, err := client.Do(req)
				if err != nil {
					errs <- fmt.Errorf("%s, entry %d: %v", who, e.Order, err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusSeeOther {
					errs <- fmt.Errorf("%s, entry %d: status %d", who, e.Order, resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d grades in %v", assessors*each, time.Since(begin).Round(time.Millisecond))
	grades, err := a.db.Grades(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(grades) != assessors*each {
		t.Fatalf("%d grades stored, want %d", len(grades), assessors*each)
	}
	seen := map[string]bool{}
	for _, g := range grades {
		k := g.Assessor + "\x00" + g.Query + "\x00" + g.Item
		if seen[k] {
			t.Fatalf("duplicate grade %+v", g)
		}
		seen[k] = true
		if g.Grade != wantKey(g.Assessor, g.Key) {
			t.Fatalf("grade %+v, sent %d", g, wantKey(g.Assessor, g.Key))
		}
	}
	var logged int
	a.db.r.QueryRow("SELECT count(*) FROM log WHERE action = 'grade'").Scan(&logged)
	if logged != assessors*each {
		t.Errorf("%d grades logged", logged)
	}
}

// want is the grade assessor who sends for entry e.
func want(who string, e *Entry) int { return wantKey(who, e.Key()) }

func wantKey(who string, k Key) int {
	h := 0
	for _, c := range who + k.Query + k.Item {
		h = h*31 + int(c)
	}
	return (h%4 + 4) % 4
}
