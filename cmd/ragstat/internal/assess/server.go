package assess

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/localhttp"
)

//go:embed web/page.html web/app.js web/app.css
var web embed.FS

// Limits on what a request may carry.
const (
	maxBody   = 64 << 10 // bytes of a POST body
	maxNote   = 4000     // characters of a note
	maxSpan   = 8000     // characters of a span
	maxHeader = 32 << 10
)

// Config is what a Server serves.
type Config struct {
	Store Store
	Task  *Task
	// Token, when set, must come with every request (as ?token= once, then
	// a cookie, or an Authorization: Bearer header). It is required when
	// the listener is not on a loopback address.
	Token string
	Now   func() time.Time // the clock, called from many requests at once; time.Now when nil
	Log   *log.Logger      // where request failures are logged; nil: discarded
}

// Server is the assessment web app.
type Server struct {
	cfg      Config
	ln       net.Listener
	loopback bool
	csrf     string
	pages    *template.Template
	js, css  []byte
}

// New makes the server for ln. On a loopback listener it accepts only
// loopback host names (against DNS rebinding); on any other it needs
// cfg.Token.
func New(ln net.Listener, cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Task == nil {
		return nil, errors.New("assess: a server needs a store and a task")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	s := &Server{cfg: cfg, ln: ln, loopback: localhttp.IsLoopback(ln.Addr())}
	if !s.loopback && cfg.Token == "" {
		return nil, fmt.Errorf("listening on %s, off the loopback interface, needs an access token", ln.Addr())
	}
	var err error
	if s.csrf, err = localhttp.RandomToken(); err != nil {
		return nil, err
	}
	if s.pages, err = template.New("page.html").Funcs(funcs).ParseFS(web, "web/page.html"); err != nil {
		return nil, err
	}
	s.js, _ = web.ReadFile("web/app.js")
	s.css, _ = web.ReadFile("web/app.css")
	return s, nil
}

// URL is the address to open in a browser, with the token when one is set.
func (s *Server) URL() string {
	host := s.ln.Addr().String()
	if tcp, ok := s.ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		if name, err := osHostname(); err == nil {
			host = net.JoinHostPort(name, strconv.Itoa(tcp.Port))
		}
	}
	u := "http://" + host + "/"
	if s.cfg.Token != "" {
		u += "?token=" + url.QueryEscape(s.cfg.Token)
	}
	return u
}

// Serve serves on the listener until ctx ends, then shuts down, letting
// requests in flight finish (their grades are committed or not, never half).
func (s *Server) Serve(ctx context.Context) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    maxHeader,
		ErrorLog:          s.cfg.Log,
	}
	return localhttp.Serve(ctx, srv, s.ln, 10*time.Second)
}

// Handler is the app: its routes behind the host, token and cross-origin
// checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.welcome)
	mux.HandleFunc("GET /start", s.start)
	mux.HandleFunc("GET /a/{assessor}/next", s.resume)
	mux.HandleFunc("GET /a/{assessor}/e/{order}", s.page)
	mux.HandleFunc("POST /a/{assessor}/e/{order}", s.judge)
	mux.HandleFunc("POST /a/{assessor}/e/{order}/span", s.addSpan)
	mux.HandleFunc("POST /a/{assessor}/e/{order}/span/{id}/delete", s.deleteSpan)
	mux.HandleFunc("GET /a/{assessor}/done", s.done)
	mux.HandleFunc("GET /app.js", s.asset("text/javascript; charset=utf-8", s.js))
	mux.HandleFunc("GET /app.css", s.asset("text/css; charset=utf-8", s.css))
	cop := http.NewCrossOriginProtection()
	return s.guard(cop.Handler(mux))
}

// guard applies what every request goes through: security headers, the
// loopback host check, the access token and the body limit.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if s.loopback && !localhttp.LoopbackHost(r.Host) {
			http.Error(w, "this server answers only to localhost, 127.0.0.1 or [::1] (Host "+r.Host+" refused)", http.StatusMisdirectedRequest)
			return
		}
		if s.cfg.Token != "" && !s.authorized(w, r) {
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		next.ServeHTTP(w, r)
	})
}

const tokenCookie = "ragstat_judge_token"

// authorized checks the access token: a cookie, a bearer header, or the
// ?token= of the printed URL, which is turned into a cookie and taken out
// of the address bar.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if c, err := r.Cookie(tokenCookie); err == nil && s.tokenOK(c.Value) {
		return true
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokenOK(b) {
		return true
	}
	if t := r.URL.Query().Get("token"); t != "" && s.tokenOK(t) && r.Method == http.MethodGet {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.cfg.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q := r.URL.Query()
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return false
	}
	http.Error(w, "access token missing or wrong: open the URL that `ragstat judge` printed", http.StatusUnauthorized)
	return false
}

func (s *Server) tokenOK(t string) bool {
	return localhttp.TokenEqual(t, s.cfg.Token)
}

func (s *Server) asset(ctype string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	}
}

// ValidAssessor reports whether name can name an assessor: 1 to 64
// letters, digits, spaces, dots, underscores or hyphens, starting with a
// letter or digit.
func ValidAssessor(name string) bool {
	n := 0
	for _, r := range name {
		if n++; n > 64 || !unicode.IsLetter(r) && !unicode.IsNumber(r) && (n == 1 || !strings.ContainsRune(" ._-", r)) {
			return false
		}
	}
	return n > 0 && strings.TrimSpace(name) == name
}

// target reads the assessor and entry a request is about; it writes the
// error itself and returns ok false when they are not valid.
// targetWork is target, then the assessor's work so far; ok is false once
// an error has been answered.
func (s *Server) targetWork(w http.ResponseWriter, r *http.Request) (string, *Entry, *Work, bool) {
	who, e, ok := s.target(w, r)
	if !ok {
		return "", nil, nil, false
	}
	work, err := s.cfg.Store.Work(r.Context(), who)
	if err != nil {
		s.storeFailed(w, r, err)
		return "", nil, nil, false
	}
	return who, e, work, true
}

func (s *Server) target(w http.ResponseWriter, r *http.Request) (string, *Entry, bool) {
	who := r.PathValue("assessor")
	if !ValidAssessor(who) {
		http.Error(w, "not a valid assessor name: use 1 to 64 letters, digits, spaces, dots, underscores or hyphens", http.StatusBadRequest)
		return "", nil, false
	}
	if r.PathValue("order") == "" {
		return who, nil, true
	}
	n, err := strconv.Atoi(r.PathValue("order"))
	e := s.cfg.Task.ByOrder(n)
	if err != nil || e == nil {
		http.Error(w, "no such queue entry", http.StatusNotFound)
		return "", nil, false
	}
	return who, e, true
}

// form parses a POST body and checks the CSRF token and that the page was
// made for this entry (the queue may have changed since).
func (s *Server) form(w http.ResponseWriter, r *http.Request, e *Entry) bool {
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		}
		return false
	}
	if !localhttp.TokenEqual(r.PostForm.Get("csrf"), s.csrf) {
		http.Error(w, "missing or stale form token: reload the page (the server may have restarted)", http.StatusForbidden)
		return false
	}
	if r.PostForm.Get("query") != e.Query || r.PostForm.Get("item") != e.Item {
		http.Error(w, "this page is out of date (the queue changed): reload it; nothing was saved", http.StatusConflict)
		return false
	}
	return true
}

// storeFailed reports a write that did not commit: nothing is claimed saved.
func (s *Server) storeFailed(w http.ResponseWriter, r *http.Request, err error) {
	s.cfg.Log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
	code := http.StatusInternalServerError
	if errors.Is(err, ErrBusy) || errors.Is(err, context.DeadlineExceeded) {
		code = http.StatusServiceUnavailable
	}
	http.Error(w, "NOT SAVED: "+err.Error()+"\nGo back and try again.", code)
}

func (s *Server) judge(w http.ResponseWriter, r *http.Request) {
	who, e, ok := s.target(w, r)
	if !ok || !s.form(w, r, e) {
		return
	}
	note := r.PostForm.Get("note")
	if utf8.RuneCountInString(note) > maxNote {
		http.Error(w, fmt.Sprintf("the note is longer than %d characters; nothing was saved", maxNote), http.StatusRequestEntityTooLarge)
		return
	}
	now := s.cfg.Now()
	var err error
	scale := s.cfg.Store.Scale()
	g := r.PostForm.Get("grade")
	grade, gerr := strconv.Atoi(g)
	switch {
	case r.PostForm.Get("action") == "skip":
		err = s.cfg.Store.SaveSkip(r.Context(), Skip{Assessor: who, Key: e.Key(), Note: note, At: now})
	case gerr == nil && scale.Contains(grade):
		err = s.cfg.Store.SaveGrade(r.Context(), Grade{Assessor: who, Key: e.Key(), Grade: grade, Note: note, At: now})
	default:
		http.Error(w, fmt.Sprintf("grade %q: give %d to %d, or skip; nothing was saved", g, scale.Min, scale.Max), http.StatusBadRequest)
		return
	}
	if err != nil {
		s.storeFailed(w, r, err)
		return
	}
	// Committed: only now may a page say so.
	work, err := s.cfg.Store.Work(r.Context(), who)
	if err != nil {
		s.storeFailed(w, r, err)
		return
	}
	next := s.cfg.Task.Next(work, e)
	where := s.doneURL(who)
	if next != nil {
		where = s.entryURL(who, next)
	}
	http.Redirect(w, r, where+"?saved="+strconv.Itoa(e.Order), http.StatusSeeOther)
}

func (s *Server) addSpan(w http.ResponseWriter, r *http.Request) {
	who, e, ok := s.target(w, r)
	if !ok || !s.form(w, r, e) {
		return
	}
	text := strings.TrimSpace(r.PostForm.Get("text"))
	fact := r.PostForm.Get("fact")
	switch {
	case text == "":
		http.Error(w, "select some text of the passage first; nothing was saved", http.StatusBadRequest)
		return
	case utf8.RuneCountInString(text) > maxSpan:
		http.Error(w, fmt.Sprintf("the span is longer than %d characters; nothing was saved", maxSpan), http.StatusRequestEntityTooLarge)
		return
	case !strings.Contains(e.Passage.Text, text):
		http.Error(w, "the selected text is not part of this passage; nothing was saved", http.StatusBadRequest)
		return
	case fact != "" && !hasFact(e, fact):
		http.Error(w, fmt.Sprintf("the topic has no fact %q; nothing was saved", fact), http.StatusBadRequest)
		return
	}
	if _, err := s.cfg.Store.AddSpan(r.Context(), Span{Assessor: who, Key: e.Key(), Fact: fact, Text: text, At: s.cfg.Now()}); err != nil {
		s.storeFailed(w, r, err)
		return
	}
	http.Redirect(w, r, s.entryURL(who, e)+"?saved=span", http.StatusSeeOther)
}

func hasFact(e *Entry, id string) bool {
	for _, f := range e.Topic.Facts {
		if f.ID == id {
			return true
		}
	}
	return false
}

func (s *Server) deleteSpan(w http.ResponseWriter, r *http.Request) {
	who, e, ok := s.target(w, r)
	if !ok || !s.form(w, r, e) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "no such span", http.StatusNotFound)
		return
	}
	if err := s.cfg.Store.DeleteSpan(r.Context(), who, id, s.cfg.Now()); err != nil {
		s.storeFailed(w, r, err)
		return
	}
	http.Redirect(w, r, s.entryURL(who, e)+"?saved=unspan", http.StatusSeeOther)
}

func (s *Server) entryURL(who string, e *Entry) string {
	return "/a/" + url.PathEscape(who) + "/e/" + strconv.Itoa(e.Order)
}

func (s *Server) doneURL(who string) string { return "/a/" + url.PathEscape(who) + "/done" }

func (s *Server) start(w http.ResponseWriter, r *http.Request) {
	who := strings.TrimSpace(r.URL.Query().Get("assessor"))
	if !ValidAssessor(who) {
		s.render(w, "welcome", s.welcomeData(r, "Enter a name of 1 to 64 letters, digits, spaces, dots, underscores or hyphens."))
		return
	}
	http.Redirect(w, r, "/a/"+url.PathEscape(who)+"/next", http.StatusSeeOther)
}

func (s *Server) resume(w http.ResponseWriter, r *http.Request) {
	who, _, work, ok := s.targetWork(w, r)
	if !ok {
		return
	}
	if e := s.cfg.Task.Resume(work); e != nil {
		http.Redirect(w, r, s.entryURL(who, e), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, s.doneURL(who), http.StatusSeeOther)
}
