package judgments

import (
	"fmt"
	"io"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/trecfile"
)

// Subtopics are diversity judgments, TREC Web diversity qrels: one line
// `topic subtopic item grade` per item judged for one subtopic (an
// aspect, or a fact the answer needs) of a query. The diversity metrics
// (alpha-nDCG, ERR-IA) read them.
type Subtopics struct {
	File    string
	queries map[string]*SubtopicQuery
}

// SubtopicQuery is one query's subtopic judgments.
type SubtopicQuery struct {
	names []string       // subtopic ids, in first-seen order
	index map[string]int // subtopic id -> position in names
	items map[string][]SubtopicGrade
	order []string // items in first-seen order
}

// SubtopicGrade is an item's grade for one subtopic, by position.
type SubtopicGrade struct {
	Subtopic int
	Grade    int
}

// Query returns q's subtopic judgments, or nil.
func (s *Subtopics) Query(q string) *SubtopicQuery { return s.queries[q] }

// Len is the number of subtopics of the query.
func (q *SubtopicQuery) Len() int { return len(q.names) }

// Of returns item's grades, one per subtopic it was judged for.
func (q *SubtopicQuery) Of(item string) []SubtopicGrade { return q.items[item] }

// Items lists the judged items in the order they were read.
func (q *SubtopicQuery) Items() []string { return q.order }

// ReadSubtopics reads TREC diversity qrels strictly: four fields a line,
// integer grades on scale, each (query, subtopic, item) judged once.
// Problems are gathered (up to diag.Max) and returned together.
func ReadSubtopics(f *input.File, scale Scale) (*Subtopics, error) {
	if scale == (Scale{}) {
		scale = DefaultScale
	}
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s := &Subtopics{File: f.Name, queries: map[string]*SubtopicQuery{}}
	var errs diag.List
	seen := map[[3]string]int{}
	errs.Add(readSubtopics(r, f.Name, func(l trecfile.QrelsLine) {
		bad := func(msg, hint string) {
			errs.Add(&diag.Error{File: f.Name, Line: l.Line, Query: l.Query, Item: l.Doc, Msg: msg, Hint: hint})
		}
		key := [3]string{l.Query, l.Iter, l.Doc}
		switch first, dup := seen[key]; {
		case dup:
			bad(fmt.Sprintf("judged twice for subtopic %q (first on line %d)", l.Iter, first), "keep one judgment per query, subtopic and item")
			return
		case !scale.Contains(l.Grade):
			bad(fmt.Sprintf("grade %d is outside the scale %s", l.Grade, scale), "fix the grade, or declare the scale with {grades} MIN..MAX")
			return
		}
		seen[key] = l.Line
		s.add(l)
	}, &errs))
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

func readSubtopics(r io.Reader, name string, fn func(trecfile.QrelsLine), errs *diag.List) error {
	return trecfile.ReadQrels(r, trecfile.Options{Name: name}, func(l trecfile.QrelsLine) error {
		fn(l)
		if errs.Full() {
			return errStop
		}
		return nil
	})
}

func (s *Subtopics) add(l trecfile.QrelsLine) {
	q := s.queries[l.Query]
	if q == nil {
		q = &SubtopicQuery{index: map[string]int{}, items: map[string][]SubtopicGrade{}}
		s.queries[l.Query] = q
	}
	i, ok := q.index[l.Iter]
	if !ok {
		i = len(q.names)
		q.index[l.Iter] = i
		q.names = append(q.names, l.Iter)
	}
	if _, ok := q.items[l.Doc]; !ok {
		q.order = append(q.order, l.Doc)
	}
	q.items[l.Doc] = append(q.items[l.Doc], SubtopicGrade{Subtopic: i, Grade: l.Grade})
}
