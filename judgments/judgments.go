// Package judgments holds relevance judgments (qrels): for each query, the
// grade of every judged item, and optionally the answer-bearing spans that
// justify the grade. It reads them strictly from TREC qrels, JSON Lines and
// the pytrec_eval/ranx JSON object: a grade outside the allowed scale, an
// empty id, or the same (query, item) judged twice is an error naming the
// file and line, never a silent choice.
package judgments

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/diag"
)

// Scale is the range of allowed grades, inclusive.
type Scale struct{ Min, Max int }

// DefaultScale is the source document's 0..3.
var DefaultScale = Scale{0, 3}

// ParseScale reads "MIN..MAX", e.g. "-2..4".
func ParseScale(s string) (Scale, error) {
	lo, hi, ok := strings.Cut(s, "..")
	a, err1 := strconv.Atoi(strings.TrimSpace(lo))
	b, err2 := strconv.Atoi(strings.TrimSpace(hi))
	if !ok || err1 != nil || err2 != nil || a > b {
		return Scale{}, fmt.Errorf("grade scale %q: write MIN..MAX with integers, MIN <= MAX (e.g. 0..3 or -2..4)", s)
	}
	return Scale{a, b}, nil
}

// String writes the scale as MIN..MAX.
func (s Scale) String() string { return fmt.Sprintf("%d..%d", s.Min, s.Max) }

// Contains reports whether g is on the scale.
func (s Scale) Contains(g int) bool { return s.Min <= g && g <= s.Max }

// Judgment is one graded (query, item) pair.
type Judgment struct {
	Query string
	Item  string
	Grade int
	Spans []string // answer-bearing text within the item, if the assessor marked any
	Line  int      // where it was read
}

// Query holds every judgment of one query.
type Query struct {
	ID     string
	grades map[string]entry
	spans  map[string][]string
	items  []string // in reading order
}

type entry struct {
	grade int32
	line  int32
}

// Grade returns the grade of item and whether it is judged.
func (q *Query) Grade(item string) (int, bool) {
	e, ok := q.grades[item]
	return int(e.grade), ok
}

// Line is the line item's judgment was read from (0 if unjudged).
func (q *Query) Line(item string) int { return int(q.grades[item].line) }

// Spans returns the spans recorded for item.
func (q *Query) Spans(item string) []string { return q.spans[item] }

// Items lists the judged items in reading order.
func (q *Query) Items() []string { return q.items }

// Len is the number of judged items.
func (q *Query) Len() int { return len(q.items) }

// Grades appends every judged grade to dst and returns it.
func (q *Query) Grades(dst []int32) []int32 {
	for _, it := range q.items {
		dst = append(dst, q.grades[it].grade)
	}
	return dst
}

// NumAtLeast counts judgments with grade >= min.
func (q *Query) NumAtLeast(min int) int {
	n := 0
	for _, e := range q.grades {
		if int(e.grade) >= min {
			n++
		}
	}
	return n
}

// Set is every judgment of one file.
type Set struct {
	File    string
	Format  Format
	queries map[string]*Query
	order   []string
	count   int
}

func newSet(file string, f Format) *Set {
	return &Set{File: file, Format: f, queries: map[string]*Query{}}
}

// Query returns the judgments of id, or nil.
func (s *Set) Query(id string) *Query { return s.queries[id] }

// IDs lists the judged queries in the order they first appear.
func (s *Set) IDs() []string { return s.order }

// Len is the number of judgments.
func (s *Set) Len() int { return s.count }

// add records j; a repeat of the same (query, item) is an error that names
// both lines and says whether the grades agree.
func (s *Set) add(j Judgment) error {
	q := s.query(j.Query)
	if old, dup := q.grades[j.Item]; dup {
		what := "duplicate judgment"
		if int(old.grade) != j.Grade {
			what = fmt.Sprintf("conflicting judgment: grade %d here, %d", j.Grade, old.grade)
		}
		return &diag.Error{File: s.File, Line: j.Line, Query: j.Query, Item: j.Item,
			Msg:  fmt.Sprintf("%s on line %d", what, old.line),
			Hint: "keep one judgment per (query, item); ragstat never picks one for you"}
	}
	q.grades[j.Item] = entry{grade: int32(j.Grade), line: int32(j.Line)}
	q.items = append(q.items, j.Item)
	if len(j.Spans) > 0 {
		if q.spans == nil {
			q.spans = map[string][]string{}
		}
		q.spans[j.Item] = slices.Clone(j.Spans)
	}
	s.count++
	return nil
}

// query returns the judgments of id, adding an empty entry if it is new.
func (s *Set) query(id string) *Query {
	q := s.queries[id]
	if q == nil {
		q = &Query{ID: id, grades: map[string]entry{}}
		s.queries[id] = q
		s.order = append(s.order, id)
	}
	return q
}

// Map maps every item id through f, for evaluation at document level: the
// judgments of items that map to one document become one judgment whose
// grade is the highest among them. It returns the new set and how many
// judgments were folded into another.
func (s *Set) Map(f func(item string) string) (*Set, int) {
	out := newSet(s.File, s.Format)
	folded := 0
	for _, id := range s.order {
		q := s.queries[id]
		for _, it := range q.items {
			e := q.grades[it]
			doc := f(it)
			if nq := out.queries[id]; nq != nil {
				if old, dup := nq.grades[doc]; dup {
					folded++
					nq.grades[doc] = entry{grade: max(old.grade, e.grade), line: old.line}
					continue
				}
			}
			out.add(Judgment{Query: id, Item: doc, Grade: int(e.grade), Line: int(e.line)})
		}
	}
	return out, folded
}
