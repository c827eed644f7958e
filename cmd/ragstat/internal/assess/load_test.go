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
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragstat/ragstat/internal/longtest"
)

// TestConcurrentAssessors: assessors grade every passage at the same time
// against one server over loopback. Every acknowledged grade is stored
// once, with the value sent: no duplicate, none lost. The default run sends
// 4 assessors × 60 passages; the long suite 20 × 500 (10,000 grades, each
// a synchronous SQLite commit: about two minutes on two cores). The test is
// bounded: that many requests and a deadline.
func TestConcurrentAssessors(t *testing.T) {
	assessors, each := longtest.Pick(4, 20), longtest.Pick(60, 500)
	a := start(t, each-3, "") // each-3 passages for one query, 3 for another
	if len(a.task.Entries) != each {
		t.Fatalf("%d entries", len(a.task.Entries))
	}
	ctx, cancel := context.WithTimeout(context.Background(), longtest.Pick(time.Minute, 5*time.Minute))
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
				if err := a.postGrade(ctx, client, who, e); err != nil {
					errs <- err
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

// BenchmarkConcurrentGrades measures graded passages per second with
// several assessors at once, each grade a synchronous commit.
func BenchmarkConcurrentGrades(b *testing.B) {
	a := start(b, 97, "")
	client := &http.Client{
		Transport:     &http.Transport{MaxIdleConnsPerHost: 64},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var next atomic.Int64
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		who := fmt.Sprintf("assessor-%02d", next.Add(1))
		for i := 0; pb.Next(); i++ {
			if err := a.postGrade(context.Background(), client, who, a.task.Entries[i%len(a.task.Entries)]); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// postGrade sends who's grade for e and checks the server acknowledged it.
func (a *app) postGrade(ctx context.Context, client *http.Client, who string, e *Entry) error {
	form := url.Values{"csrf": {a.srv.csrf}, "query": {e.Query}, "item": {e.Item}, "grade": {strconv.Itoa(want(who, e))}}
	req, err := http.NewRequestWithContext(ctx, "POST", a.ts.URL+"/a/"+who+"/e/"+strconv.Itoa(e.Order), strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s, entry %d: %v", who, e.Order, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("%s, entry %d: status %d", who, e.Order, resp.StatusCode)
	}
	return nil
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
