// Package judgments holds relevance judgments (qrels): for each query, the
// grade of every judged item, and optionally the answer-bearing spans that
// justify the grade. It reads them strictly from TREC qrels, JSON Lines and
// the pytrec_eval/ranx JSON object: a grade outside the allowed scale, an
// empty id, or the same (query, item) judged twice is an error naming the
// file and line, never a silent choice.
package judgments

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/hashindex"
	"github.com/ragstat/ragstat/internal/trecfile"
)

// Scale is the range of allowed grades, inclusive.
type Scale struct{ Min, Max int }

// Threshold checks that g can be a relevance threshold on s (the option
// min_grade): a positive grade on it, or its top on a scale with no
// positive grade.
func (s Scale) Threshold(g int) error {
	if !s.Contains(g) || g <= 0 && s.Max > 0 {
		return &diag.OptionError{Option: "min_grade", Value: strconv.Itoa(g), Msg: "must be a positive grade on the scale " + s.String()}
	}
	return nil
}

// DefaultScale is the source document's 0..3.
var DefaultScale = Scale{0, 3}

// MinGrade and MaxGrade bound every scale: a Set holds grades as 32-bit
// integers, the lowest of which stands for an unjudged item
// (metric.Unjudged).
const (
	MinGrade = math.MinInt32 + 1
	MaxGrade = math.MaxInt32
)

// ParseScale reads "MIN..MAX", e.g. "-2..4", within MinGrade..MaxGrade.
func ParseScale(s string) (Scale, error) {
	lo, hi, ok := strings.Cut(s, "..")
	a, err1 := strconv.Atoi(strings.TrimSpace(lo))
	b, err2 := strconv.Atoi(strings.TrimSpace(hi))
	if errors.Is(err1, strconv.ErrRange) || errors.Is(err2, strconv.ErrRange) {
		return Scale{}, fmt.Errorf("grade scale %q: a bound is beyond %d..%d, the grades a judgment holds", s, MinGrade, MaxGrade)
	}
	if !ok || err1 != nil || err2 != nil || a > b {
		return Scale{}, fmt.Errorf("grade scale %q: write MIN..MAX with integers, MIN <= MAX (e.g. 0..3 or -2..4)", s)
	}
	sc := Scale{a, b}
	if err := sc.check(); err != nil {
		return Scale{}, fmt.Errorf("grade scale %q: %w", s, err)
	}
	return sc, nil
}

// check reports a scale beyond MinGrade..MaxGrade.
func (s Scale) check() error {
	for _, g := range []int{s.Min, s.Max} {
		if g < MinGrade || g > MaxGrade {
			return fmt.Errorf("%d is beyond %d..%d, the grades a judgment holds", g, MinGrade, MaxGrade)
		}
	}
	return nil
}

// String writes the scale as MIN..MAX.
func (s Scale) String() string { return fmt.Sprintf("%d..%d", s.Min, s.Max) }

// MarshalText writes the scale as MIN..MAX.
func (s Scale) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads MIN..MAX, as ParseScale does.
func (s *Scale) UnmarshalText(b []byte) (err error) {
	*s, err = ParseScale(string(b))
	return err
}

// Contains reports whether g is on the scale.
func (s Scale) Contains(g int) bool { return s.Min <= g && g <= s.Max }

// Judgment is one graded (query, item) pair.
type Judgment struct {
	Query string
	Item  string
	Grade int
	Spans []string // answer-bearing text within the item, if the assessor marked any
	// Facts and Meta are what a JSON Lines judgment records beside its
	// grade (the required facts its spans bear on; who graded it and
	// how), kept as read so that a writer passes them on unchanged.
	Facts []string
	Meta  json.RawMessage
	Line  int // where it was read
	// LLM, when set, makes the judgment an LLM judge's label, with where
	// it came from; nil is a person's grade. A set keeps LLM labels apart
	// (see View): its grades are people's.
	LLM *Provenance
}

// Query holds every judgment of one query. Item ids are packed into one
// byte slice, so a million judgments cost tens of megabytes, not hundreds.
type Query struct {
	ID     string
	text   []byte   // item ids, concatenated in reading order
	ends   []uint32 // item i is text[ends[i-1]:ends[i]]
	grades []int32
	lines  []int32
	first  int32 // the line where the query was first read
	// index finds an item's position; it is built at the first lookup,
	// on the goroutine that needs it (an evaluation that only walks the
	// judgments never builds it).
	index   hashindex.Index
	indexed sync.Once
	extra   map[string]extra // the items with spans, facts or meta
}

// extra is what a judgment records beside its grade.
type extra struct {
	spans, facts []string
	meta         json.RawMessage
}

// Key returns the id of the i-th judged item (hashindex.Keys). The string
// shares memory with the query and is valid until the next judgment is
// added; Items returns copies.
func (q *Query) Key(i int) string {
	start := uint32(0)
	if i > 0 {
		start = q.ends[i-1]
	}
	return unsafe.String(unsafe.SliceData(q.text[start:]), int(q.ends[i]-start))
}

func (q *Query) find(item string) int {
	q.indexed.Do(func() {
		q.index.Reset(len(q.ends))
		for i := range q.ends {
			if h := hashindex.Hash(q.Key(i)); !q.index.TryAdd(h, i) {
				q.index.AddHashed(q, i, h)
			}
		}
	})
	return q.index.Find(q, item)
}

// Grade returns the grade of item and whether it is judged.
func (q *Query) Grade(item string) (int, bool) {
	if i := q.find(item); i >= 0 {
		return int(q.grades[i]), true
	}
	return 0, false
}

// FirstLine is where the query was first read: the queries' first lines
// are in the order IDs lists them.
func (q *Query) FirstLine() int { return int(q.first) }

// GradeAt is the grade of the i-th judged item (see Key).
func (q *Query) GradeAt(i int) int { return int(q.grades[i]) }

// Spans returns the spans recorded for item.
func (q *Query) Spans(item string) []string { return q.extra[item].spans }

// Items lists the judged items in reading order.
func (q *Query) Items() []string {
	out := make([]string, len(q.ends))
	for i := range out {
		out[i] = strings.Clone(q.Key(i))
	}
	return out
}

// Len is the number of judged items.
func (q *Query) Len() int { return len(q.ends) }

// Grades appends every judged grade to dst and returns it.
func (q *Query) Grades(dst []int32) []int32 { return append(dst, q.grades...) }

// add appends a judgment; repeats are found when the query is indexed.
func (q *Query) add(item string, grade, line int) {
	q.text = append(q.text, item...)
	q.ends = append(q.ends, uint32(len(q.text)))
	q.grades = append(q.grades, int32(grade))
	q.lines = append(q.lines, int32(line))
}

// checkRepeats reports every repeated item: a second judgment of the same
// (query, item) is an error naming both lines and saying whether the
// grades agree. seen is scratch space, reused from query to query.
func (q *Query) checkRepeats(file string, errs *diag.List, seen *hashindex.Index) {
	seen.Reset(len(q.ends))
	for i := range q.ends {
		h := hashindex.Hash(q.Key(i))
		if seen.TryAdd(h, i) {
			continue
		}
		first := seen.AddHashed(q, i, h)
		if first == i {
			continue
		}
		what := "duplicate judgment"
		if q.grades[first] != q.grades[i] {
			what = fmt.Sprintf("conflicting judgment: grade %d here, %d", q.grades[i], q.grades[first])
		}
		errs.Add(&diag.Error{File: file, Line: int(q.lines[i]), Query: q.ID, Item: strings.Clone(q.Key(i)),
			Msg:  fmt.Sprintf("%s on line %d", what, q.lines[first]),
			Hint: "keep one judgment per (query, item); ragstat never picks one for you"})
	}
}

// Set is every judgment of one file, or of a list New was given.
type Set struct {
	File    string       // the file read, or the name given to New
	Format  input.Format // the format read; input.FormatAuto for a set built by New
	queries map[string]*Query
	order   []string
	count   int
	last    *Query // the query added to last, while reading
	// While reading, the judgments of last, when it was new, grow in
	// these buffers, reused from query to query; settle gives them their
	// own slices of exact size once another query comes, so reading costs
	// no chain of growing slices per query.
	scratch struct {
		text          []byte
		ends          []uint32
		grades, lines []int32
	}
	lastScratch bool
	labels      *labels  // the LLM labels, nil when none
	notes       []string // see Notes
}

func newSet(file string, f input.Format) *Set {
	return &Set{File: file, Format: f, queries: map[string]*Query{}}
}

// Query returns the judgments of id, or nil.
func (s *Set) Query(id string) *Query { return s.queries[id] }

// IDs lists the judged queries in the order they first appear.
func (s *Set) IDs() []string { return s.order }

// Len is the number of judgments.
func (s *Set) Len() int { return s.count }

// add records j; repeats are reported by finish.
func (s *Set) add(j Judgment) {
	q := s.query(j.Query, j.Line)
	if len(q.ends) == 0 && !s.lastScratch { // a new query: it grows in the scratch buffers
		q.text, q.ends, q.grades, q.lines = s.scratch.text[:0], s.scratch.ends[:0], s.scratch.grades[:0], s.scratch.lines[:0]
		s.lastScratch = true
	}
	q.add(j.Item, j.Grade, j.Line)
	if len(j.Spans) > 0 || len(j.Facts) > 0 || len(j.Meta) > 0 {
		if q.extra == nil {
			q.extra = map[string]extra{}
		}
		q.extra[j.Item] = extra{slices.Clone(j.Spans), slices.Clone(j.Facts), slices.Clone(j.Meta)}
	}
	s.count++
}

// query returns the judgments of id, adding an empty entry if it is new.
func (s *Set) query(id string, line int) *Query {
	if s.last != nil && s.last.ID == id { // judgments usually come grouped by query
		return s.last
	}
	s.settle()
	q := s.queries[id]
	if q == nil {
		q = &Query{ID: id, first: int32(line)}
		s.queries[id] = q
		s.order = append(s.order, id)
	}
	s.last = q
	return q
}

// addGroup records a stretch of one query's judgments, read from TREC
// qrels and checked; repeats are reported by finish.
func (s *Set) addGroup(g *trecfile.QrelsGroup) {
	q := s.query(g.Query, g.Lines[0])
	base := uint32(len(q.text))
	q.text = append(q.text, g.Docs...)
	n := len(g.Ends)
	q.ends, q.grades, q.lines = slices.Grow(q.ends, n), slices.Grow(q.grades, n), slices.Grow(q.lines, n)
	for _, e := range g.Ends {
		q.ends = append(q.ends, base+e)
	}
	for i, grade := range g.Grades {
		q.grades = append(q.grades, int32(grade))
		q.lines = append(q.lines, int32(g.Lines[i]))
	}
	s.count += len(g.Grades)
}

// settle moves the judgments of the query read last out of the scratch
// buffers into slices of their own, of exact size, and keeps the buffers
// for the next query.
func (s *Set) settle() {
	q := s.last
	s.last = nil
	if !s.lastScratch {
		return
	}
	s.lastScratch = false
	s.scratch.text, s.scratch.ends, s.scratch.grades, s.scratch.lines = q.text[:0], q.ends[:0], q.grades[:0], q.lines[:0]
	n := len(q.ends)
	nums := make([]int32, 2*n)
	q.text = slices.Clone(q.text)
	q.ends = slices.Clone(q.ends)
	q.grades = append(nums[:0:n], q.grades...)
	q.lines = append(nums[n:n], q.lines...)
}

// Map maps every item id through f, for evaluation at document level: the
// judgments of items that map to one document become one judgment whose
// grade is the highest among them. It returns the new set and how many
// judgments were folded into another. It maps people's grades: take a View
// first to fold LLM labels too.
func (s *Set) Map(f func(item string) string) (*Set, int) {
	out := newSet(s.File, s.Format)
	folded := 0
	for _, id := range s.order {
		q := s.queries[id]
		at := map[string]int{}
		for i := range q.ends {
			doc := f(q.Key(i))
			if k, ok := at[doc]; ok {
				folded++
				nq := out.queries[id]
				nq.grades[k] = max(nq.grades[k], q.grades[i])
				continue
			}
			at[doc] = len(at)
			out.add(Judgment{Query: id, Item: doc, Grade: int(q.grades[i]), Line: int(q.lines[i])})
		}
	}
	out.finish(nil)
	return out, folded
}

// finish checks every query for repeated judgments once reading is done,
// reporting them to errs (nil when none can occur).
func (s *Set) finish(errs *diag.List) {
	s.settle()
	if errs == nil {
		errs = &diag.List{}
	}
	// Two halves on two goroutines: checking a million judgments is work.
	half := len(s.order) / 2
	var other diag.List
	var wg sync.WaitGroup
	wg.Go(func() {
		var seen hashindex.Index
		for _, id := range s.order[half:] {
			s.queries[id].checkRepeats(s.File, &other, &seen)
		}
	})
	var seen hashindex.Index
	for _, id := range s.order[:half] {
		s.queries[id].checkRepeats(s.File, errs, &seen)
	}
	wg.Wait()
	errs.Add(&other)
}

// Subset returns the judgments (and LLM labels) of the queries keep
// accepts, sharing them with s.
func (s *Set) Subset(keep func(query string) bool) *Set {
	out := newSet(s.File, s.Format)
	for _, id := range s.order {
		if keep(id) {
			out.queries[id] = s.queries[id]
			out.order = append(out.order, id)
			out.count += s.queries[id].Len()
		}
	}
	out.labels, out.notes = s.labels.subset(keep), s.notes
	return out
}
