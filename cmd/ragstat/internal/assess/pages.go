package assess

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"strconv"

	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

var osHostname = os.Hostname

// gradeLabel says what grade g of scale s means, on its button: the
// source document's names on 0..3, binary names on 0..1; on any other
// scale only the ends are named.
func gradeLabel(s judgments.Scale, g int) string {
	switch {
	case s == judgments.DefaultScale:
		return [...]string{"not relevant", "related", "relevant", "answers it"}[g]
	case s == judgments.Scale{Min: 0, Max: 1}:
		return [...]string{"not relevant", "relevant"}[g]
	case g == s.Min && s.Min < s.Max:
		return "lowest"
	case g == s.Max && s.Min < s.Max:
		return "highest"
	}
	return ""
}

// digitKeys reports whether the keys 0-9 can grade on s: when every grade
// is a single digit. Other scales are graded with the buttons only.
func digitKeys(s judgments.Scale) bool { return s.Min >= 0 && s.Max <= 9 }

// gradeButtons are the buttons of scale s, lowest first.
func gradeButtons(s judgments.Scale, current *Grade) []gradeButton {
	var out []gradeButton
	for v := s.Min; v <= s.Max; v++ {
		b := gradeButton{Value: v, Label: gradeLabel(s, v), Current: current != nil && current.Grade == v}
		if digitKeys(s) {
			b.Key = strconv.Itoa(v)
		}
		out = append(out, b)
	}
	return out
}

var funcs = template.FuncMap{
	"path": url.PathEscape,
	"pct": func(a, b int) int {
		if b == 0 {
			return 0
		}
		return a * 100 / b
	},
}

type welcomeData struct {
	Kind      string
	Assessor  string // none yet
	Message   string
	Assessors []assessorRow
	Total     int
}

type assessorRow struct {
	Name string
	Done int
}

type gradeButton struct {
	Value   int
	Label   string
	Key     string // the key that presses it; empty when none
	Current bool
}

type pageData struct {
	Kind     string
	CSRF     string
	Assessor string
	Entry    *Entry
	Facts    []topics.Fact
	Progress Progress
	Grade    *Grade
	Skipped  bool
	Note     string
	Buttons  []gradeButton
	Scale    judgments.Scale
	Keys     bool // the digit keys grade
	Spans    []Span
	Saved    string // what the last request committed, read back from the store
	Prev     *Entry
	Next     *Entry
}

func (s *Server) render(w http.ResponseWriter, name string, data any) {
	var buf bytes.Buffer
	if err := s.pages.ExecuteTemplate(&buf, name, data); err != nil {
		s.cfg.Log.Printf("rendering %s: %v", name, err)
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

func (s *Server) welcomeData(r *http.Request, msg string) welcomeData {
	d := welcomeData{Kind: "welcome", Message: msg, Total: len(s.cfg.Task.Entries)}
	names, err := s.cfg.Store.Assessors(r.Context())
	if err != nil {
		d.Message = "Could not read the assessors: " + err.Error()
	}
	for _, n := range names {
		row := assessorRow{Name: n}
		if work, err := s.cfg.Store.Work(r.Context(), n); err == nil {
			row.Done = s.cfg.Task.Progress(work, nil).Done
		}
		d.Assessors = append(d.Assessors, row)
	}
	return d
}

func (s *Server) welcome(w http.ResponseWriter, r *http.Request) {
	s.render(w, "welcome", s.welcomeData(r, ""))
}

func (s *Server) done(w http.ResponseWriter, r *http.Request) {
	who, _, work, ok := s.targetWork(w, r)
	if !ok {
		return
	}
	d := pageData{Kind: "done", Assessor: who, Progress: s.cfg.Task.Progress(work, nil)}
	d.Saved = s.savedMessage(r, work)
	if len(s.cfg.Task.Entries) > 0 {
		d.Prev = s.cfg.Task.Entries[len(s.cfg.Task.Entries)-1]
	}
	d.Next = s.cfg.Task.Resume(work)
	s.render(w, "done", d)
}

// savedMessage confirms the write named by ?saved= from what the store now
// holds, so the page never says "saved" for something that is not there.
func (s *Server) savedMessage(r *http.Request, work *Work) string {
	v := r.URL.Query().Get("saved")
	switch v {
	case "":
		return ""
	case "span":
		return "Saved the span."
	case "unspan":
		return "Removed the span."
	}
	n, err := strconv.Atoi(v)
	e := s.cfg.Task.ByOrder(n)
	if err != nil || e == nil {
		return ""
	}
	if g, ok := work.Grades[e.Key()]; ok {
		return "Saved: grade " + strconv.Itoa(g.Grade) + " for passage " + strconv.Itoa(e.InQuery) + " of query " + e.Query + "."
	}
	if work.Skipped[e.Key()] {
		return "Skipped passage " + strconv.Itoa(e.InQuery) + " of query " + e.Query + "; it comes back at the end."
	}
	return ""
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	who, e, work, ok := s.targetWork(w, r)
	if !ok {
		return
	}
	spans, err := s.cfg.Store.Spans(r.Context(), who, e.Key())
	if err != nil {
		s.storeFailed(w, r, err)
		return
	}
	d := pageData{Kind: "grade", CSRF: s.csrf, Assessor: who, Entry: e, Facts: e.Topic.Facts,
		Progress: s.cfg.Task.Progress(work, e), Skipped: work.Skipped[e.Key()], Spans: spans}
	if g, ok := work.Grades[e.Key()]; ok {
		d.Grade, d.Note = &g, g.Note
	}
	d.Scale = s.cfg.Store.Scale()
	d.Buttons, d.Keys = gradeButtons(d.Scale, d.Grade), digitKeys(d.Scale)
	d.Saved = s.savedMessage(r, work)
	if e.Pos > 0 {
		d.Prev = s.cfg.Task.Entries[e.Pos-1]
	}
	if e.Pos+1 < len(s.cfg.Task.Entries) {
		d.Next = s.cfg.Task.Entries[e.Pos+1]
	}
	s.render(w, "grade", d)
}
