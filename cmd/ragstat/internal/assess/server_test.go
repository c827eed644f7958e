package assess

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/judgments"
)

func TestGradeSkipResume(t *testing.T) {
	a := start(t, 5, "")
	code, body := a.get(t, "/")
	if code != 200 || !strings.Contains(body, `action="/start"`) {
		t.Fatalf("welcome: %d\n%s", code, body)
	}
	resp, _ := a.client.Get(a.ts.URL + "/start?assessor=ann")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/a/ann/next" {
		t.Fatalf("start: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if loc := location(t, a, "/a/ann/next"); loc != "/a/ann/e/1" {
		t.Fatalf("resume on a new assessor: %s", loc)
	}
	resp = a.grade(t, "ann", 1, 2)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/a/ann/e/2?saved=1" {
		t.Fatalf("grade: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, body := a.get(t, "/a/ann/e/2?saved=1"); !strings.Contains(body, "Saved: grade 2 for passage 1 of query refund.") {
		t.Errorf("no saved message:\n%s", body)
	}
	// ?saved= for something not stored says nothing.
	if _, body := a.get(t, "/a/ann/e/2?saved=3"); strings.Contains(body, "Saved") {
		t.Errorf("claims an unsaved grade was saved")
	}
	if resp := a.post(t, "ann", 2, "", url.Values{"action": {"skip"}}); resp.Header.Get("Location") != "/a/ann/e/3?saved=2" {
		t.Fatalf("skip: %s", resp.Header.Get("Location"))
	}
	if loc := location(t, a, "/a/ann/next"); loc != "/a/ann/e/3" {
		t.Errorf("resume after a skip: %s", loc)
	}
	// Regrading replaces, with the note.
	a.post(t, "ann", 1, "", url.Values{"grade": {"3"}, "note": {"changed my mind"}})
	w := work(t, a.db, "ann")
	if g := w.Grades[Key{"refund", "p0"}]; g.Grade != 3 || g.Note != "changed my mind" || len(w.Grades) != 1 {
		t.Errorf("regrade: %+v", w.Grades)
	}
	// Another assessor starts from the beginning and keeps separate grades.
	if loc := location(t, a, "/a/bob/next"); loc != "/a/bob/e/1" {
		t.Errorf("bob resumes at %s", loc)
	}
	a.grade(t, "bob", 1, 0)
	if g := work(t, a.db, "ann").Grades[Key{"refund", "p0"}].Grade; g != 3 {
		t.Errorf("bob's grade changed ann's: %d", g)
	}
	_, body = a.get(t, "/a/ann/e/1")
	for _, want := range []string{`id="g3" class="chosen"`, "your grade: 3", "changed my mind", `id="done-all">1 of 8`, `id="done-query">1 of 5`, `id="forward" href="/a/ann/e/2"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if _, body := a.get(t, "/"); !strings.Contains(body, "/a/ann/next") || !strings.Contains(body, "/a/bob/next") {
		t.Errorf("welcome does not list the assessors:\n%s", body)
	}
}

func TestDoneAndSkippedComeBack(t *testing.T) {
	a := start(t, 2, "")
	for o := 1; o <= 4; o++ {
		if o == 3 {
			a.post(t, "ann", o, "", url.Values{"action": {"skip"}})
			continue
		}
		a.grade(t, "ann", o, 1)
	}
	if loc := location(t, a, "/a/ann/next"); loc != "/a/ann/e/3" {
		t.Fatalf("the skipped entry does not come back: %s", loc)
	}
	resp := a.grade(t, "ann", 3, 1)
	if loc := resp.Header.Get("Location"); loc != "/a/ann/done?saved=3" {
		t.Fatalf("after the last: %s", loc)
	}
	if _, body := a.get(t, "/a/ann/done?saved=3"); !strings.Contains(body, "All passages judged") {
		t.Errorf("done page:\n%s", body)
	}
}

func location(t *testing.T, a *app, path string) string {
	t.Helper()
	resp, err := a.client.Get(a.ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("Location")
}

// TestPassageShownAsText: markup in a passage or a query is escaped, so a
// <script> or an onerror= attribute is text on the page.
func TestPassageShownAsText(t *testing.T) {
	a := start(t, 3, "")
	_, body := a.get(t, "/a/ann/e/1")
	for _, bad := range []string{"<script>window", "<img src=x", "<b>bold</b>"} {
		if strings.Contains(body, bad) {
			t.Errorf("page holds raw markup %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;window.pwned=1&lt;/script&gt;", "&lt;img src=x onerror=&#34;window.pwned=2&#34;&gt;", "&lt;b&gt;bold&lt;/b&gt;", "&amp; done"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks the escaped %q", want)
		}
	}
	resp, _ := a.client.Get(a.ts.URL + "/a/ann/e/1")
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	resp.Body.Close()
	// An assessor name with markup is refused, not echoed.
	if code, _ := a.get(t, "/a/%3Cscript%3E/next"); code != http.StatusBadRequest {
		t.Errorf("a name with markup: %d", code)
	}
}

func TestHostCheck(t *testing.T) {
	a := start(t, 2, "")
	_, port, _ := net.SplitHostPort(a.ts.Listener.Addr().String())
	for host, want := range map[string]int{
		"127.0.0.1:" + port: 200, "localhost:" + port: 200, "LOCALHOST": 200, "[::1]:" + port: 200, "app.localhost:" + port: 200,
		"evil.example:" + port: http.StatusMisdirectedRequest, "evil.example": http.StatusMisdirectedRequest,
		"127.0.0.1.evil.example": http.StatusMisdirectedRequest, "10.0.0.1:" + port: http.StatusMisdirectedRequest,
	} {
		req, _ := http.NewRequest("GET", a.ts.URL+"/", nil)
		req.Host = host
		resp, err := a.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	// A rebinding page cannot post either.
	req, _ := http.NewRequest("POST", a.ts.URL+"/a/ann/e/1", strings.NewReader(url.Values{"grade": {"1"}, "csrf": {a.srv.csrf}, "query": {"refund"}, "item": {"p0"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Host = "evil.example"
	resp, _ := a.client.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest || len(work(t, a.db, "ann").Grades) != 0 {
		t.Errorf("a post with a foreign Host: %d", resp.StatusCode)
	}
}

// fakeAddr is a listener address off the loopback interface (TEST-NET-1);
// nothing listens there.
type fakeListener struct{ net.Listener }

func (fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8080} }

func TestTokenOffLoopback(t *testing.T) {
	db := openDB(t, t.TempDir()+"/j.db")
	tk := task(t, 2)
	if _, err := New(fakeListener{}, Config{Store: db, Task: tk}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("off loopback without a token: %v", err)
	}
	s, err := New(fakeListener{}, Config{Store: db, Task: tk, Token: "sesame"})
	if err != nil {
		t.Fatal(err)
	}
	if u := s.URL(); u != "http://192.0.2.1:8080/?token=sesame" {
		t.Errorf("URL %s", u)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, edit func(*http.Request)) *http.Response {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(url.Values{"grade": {"1"}, "csrf": {s.csrf}, "query": {"refund"}, "item": {"p0"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Host = "judge.example" // off loopback any host name may reach it
		if edit != nil {
			edit(req)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, path := range []string{"/", "/app.js", "/a/ann/e/1", "/?token=wrong"} {
		if resp := do("GET", path, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d", path, resp.StatusCode)
		}
	}
	if resp := do("POST", "/a/ann/e/1", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without the token: %d", resp.StatusCode)
	}
	resp := do("GET", "/a/ann/e/1?token=sesame", nil)
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == tokenCookie {
			cookie = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/a/ann/e/1" || cookie == nil || !cookie.HttpOnly {
		t.Fatalf("the token URL: %d %s %v", resp.StatusCode, resp.Header.Get("Location"), cookie)
	}
	if resp := do("GET", "/a/ann/e/1", func(r *http.Request) { r.AddCookie(cookie) }); resp.StatusCode != 200 {
		t.Errorf("with the cookie: %d", resp.StatusCode)
	}
	if resp := do("POST", "/a/ann/e/1", func(r *http.Request) { r.Header.Set("Authorization", "Bearer sesame") }); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("POST with the bearer token: %d", resp.StatusCode)
	}
	if n := len(work(t, db, "ann").Grades); n != 1 {
		t.Errorf("%d grades stored", n)
	}
}

func TestCSRFAndLimits(t *testing.T) {
	a := start(t, 3, "")
	cases := []struct {
		name string
		form url.Values
		want int
	}{
		{"no csrf token", url.Values{"grade": {"1"}, "csrf": {"-"}}, http.StatusForbidden},
		{"wrong csrf token", url.Values{"grade": {"1"}, "csrf": {strings.Repeat("0", 64)}}, http.StatusForbidden},
		{"stale page", url.Values{"grade": {"1"}, "query": {"refund"}, "item": {"p1"}}, http.StatusConflict},
		{"grade 4", url.Values{"grade": {"4"}}, http.StatusBadRequest},
		{"grade 1.5", url.Values{"grade": {"1.5"}}, http.StatusBadRequest},
		{"no grade", url.Values{}, http.StatusBadRequest},
		{"long note", url.Values{"grade": {"1"}, "note": {strings.Repeat("n", maxNote+1)}}, http.StatusRequestEntityTooLarge},
		{"huge body", url.Values{"grade": {"1"}, "note": {strings.Repeat("n", maxBody)}}, http.StatusRequestEntityTooLarge},
	}
	for _, c := range cases {
		if resp := a.post(t, "ann", 1, "", c.form); resp.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	req, _ := http.NewRequest("POST", a.ts.URL+"/a/ann/e/1", strings.NewReader(url.Values{"grade": {"1"}, "csrf": {a.srv.csrf}, "query": {"refund"}, "item": {"p0"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, _ := a.client.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site post: %d", resp.StatusCode)
	}
	if n := len(work(t, a.db, "ann").Grades); n != 0 {
		t.Errorf("refused requests stored %d grades", n)
	}
	for _, path := range []string{"/a/ann/e/99", "/a/ann/e/x", "/web/page.html", "/../../etc/passwd", "/app.js/../../go.mod", "/a/ann/e/1/span/1/delete"} {
		resp, err := http.Get(a.ts.URL + path) // follows the mux's path cleaning
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
	if code, body := a.get(t, "/app.js"); code != 200 || !strings.Contains(body, "keydown") {
		t.Errorf("app.js: %d", code)
	}
}

func TestSpans(t *testing.T) {
	a := start(t, 3, "")
	for _, c := range []struct {
		form url.Values
		want int
	}{
		{url.Values{"text": {"refunds take 11 days"}, "fact": {"days"}}, http.StatusSeeOther},
		{url.Values{"text": {"  about refunds  "}}, http.StatusSeeOther},
		{url.Values{"text": {"not in the passage"}}, http.StatusBadRequest},
		{url.Values{"text": {"refunds"}, "fact": {"nope"}}, http.StatusBadRequest},
		{url.Values{"text": {"   "}}, http.StatusBadRequest},
	} {
		if resp := a.post(t, "ann", 2, "/span", c.form); resp.StatusCode != c.want {
			t.Errorf("span %v: %d, want %d", c.form, resp.StatusCode, c.want)
		}
	}
	spans, _ := a.db.Spans(context.Background(), "ann", Key{"refund", "p1"})
	if len(spans) != 2 || spans[0].Fact != "days" || spans[1].Text != "about refunds" {
		t.Fatalf("spans %+v", spans)
	}
	_, body := a.get(t, "/a/ann/e/2?saved=span")
	for _, want := range []string{"Saved the span.", "<q>refunds take 11 days</q>", "for days", `<option value="days">`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if resp := a.post(t, "ann", 2, fmt.Sprintf("/span/%d/delete", spans[0].ID), url.Values{}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("delete: %d", resp.StatusCode)
	}
	if resp := a.post(t, "bob", 2, fmt.Sprintf("/span/%d/delete", spans[1].ID), url.Values{}); resp.StatusCode == http.StatusSeeOther {
		t.Errorf("bob deleted ann's span")
	}
	if spans, _ := a.db.Spans(context.Background(), "ann", Key{"refund", "p1"}); len(spans) != 1 {
		t.Errorf("after delete: %+v", spans)
	}
}

// failing is a store whose writes fail as a locked database's do.
type failing struct{ Store }

func (failing) SaveGrade(context.Context, Grade) error { return fmt.Errorf("j.db: %w", ErrBusy) }

func TestFailedWriteIsNotSaved(t *testing.T) {
	db := openDB(t, t.TempDir()+"/j.db")
	a := startWith(t, db, task(t, 2), "")
	a.srv.cfg.Store = failing{db}
	resp, err := a.client.PostForm(a.ts.URL+"/a/ann/e/1", url.Values{"grade": {"2"}, "csrf": {a.srv.csrf}, "query": {"refund"}, "item": {"p0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 200)
	n, _ := resp.Body.Read(buf)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(string(buf[:n]), "NOT SAVED") {
		t.Errorf("%d %q", resp.StatusCode, buf[:n])
	}
}

func TestServeStopsOnCancel(t *testing.T) {
	db := openDB(t, t.TempDir()+"/j.db")
	ctx, cancel := context.WithCancel(context.Background())
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- Run(ctx, db, task(t, 2), RunOptions{Out: &syncWriter{b: &out}}) }()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(readSync(&out), "http://127.0.0.1:") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Fatal(err)
	}
	if !strings.Contains(readSync(&out), "4 passages to judge, grades 0..3. Open http://127.0.0.1:") {
		t.Errorf("printed %q", readSync(&out))
	}
}

// TestPassageNumbers: a passage is numbered within its query, and the
// facts show their text (or say the topics give none).
func TestPassageNumbers(t *testing.T) {
	a := start(t, 5, "") // refund: p0..p4 (orders 1-5); limits: p0..p2 (orders 6-8)
	for _, tc := range []struct {
		order int
		want  string
	}{{1, "Passage 1 of 5 for this query"}, {5, "Passage 5 of 5 for this query"}, {7, "Passage 2 of 3 for this query"}} {
		if _, body := a.get(t, "/a/ann/e/"+strconv.Itoa(tc.order)); !strings.Contains(body, tc.want) {
			t.Errorf("entry %d lacks %q", tc.order, tc.want)
		}
	}
	_, body := a.get(t, "/a/ann/e/1")
	for _, want := range []string{"<b>days</b>: the number of days", `<option value="days">days: the number of days</option>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	a.grade(t, "ann", 7, 1)
	if _, body := a.get(t, "/a/ann/e/8?saved=7"); !strings.Contains(body, "Saved: grade 1 for passage 2 of query limits.") {
		t.Errorf("saved message does not number the passage within its query")
	}
}

// TestGradesOnScale: the page's buttons, keys and labels come from the
// database's scale, and a grade off it is refused with nothing stored.
func TestGradesOnScale(t *testing.T) {
	for _, c := range []struct {
		scale     judgments.Scale
		ok, bad   []string
		page, not []string
	}{
		{judgments.Scale{Min: 0, Max: 4}, []string{"4", "0"}, []string{"5", "-1", "x"},
			[]string{`id="g4" data-key="4"`, "<kbd>4</kbd> highest", "<kbd>0</kbd> lowest", "<kbd>0</kbd>–<kbd>4</kbd> grade"}, []string{`id="g5"`}},
		{judgments.Scale{Min: 0, Max: 1}, []string{"1"}, []string{"2", "3"},
			[]string{"<kbd>1</kbd> relevant", "<kbd>0</kbd>–<kbd>1</kbd> grade"}, []string{`id="g2"`}},
		{judgments.Scale{Min: -1, Max: 10}, []string{"10", "-1"}, []string{"11", "-2"},
			[]string{`id="g-1" class="chosen"><b>-1</b> lowest`, `<b>10</b> highest`, "none for grades (the scale -1..10 goes beyond the digits 0–9"}, []string{"data-key"}},
	} {
		t.Run(c.scale.String(), func(t *testing.T) {
			db, err := Open(filepath.Join(t.TempDir(), "j.db"), OpenOptions{Create: true, Scale: &c.scale})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			a := startWith(t, db, task(t, 3), "")
			for _, g := range c.bad {
				if resp := a.post(t, "ann", 1, "", url.Values{"grade": {g}}); resp.StatusCode != http.StatusBadRequest {
					t.Errorf("grade %s: %d", g, resp.StatusCode)
				}
			}
			if n := len(work(t, db, "ann").Grades); n != 0 {
				t.Errorf("off-scale grades stored: %d", n)
			}
			for _, g := range c.ok {
				if resp := a.post(t, "ann", 1, "", url.Values{"grade": {g}}); resp.StatusCode != http.StatusSeeOther {
					t.Errorf("grade %s: %d", g, resp.StatusCode)
				}
				if got := work(t, db, "ann").Grades[a.task.ByOrder(1).Key()].Grade; strconv.Itoa(got) != g {
					t.Errorf("stored %d, posted %s", got, g)
				}
			}
			_, body := a.get(t, "/a/ann/e/1")
			for _, want := range c.page {
				if !strings.Contains(body, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			for _, not := range c.not {
				if strings.Contains(body, not) {
					t.Errorf("page has %q", not)
				}
			}
		})
	}
}
