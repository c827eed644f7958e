package runs

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
	"github.com/ragstat/ragstat/internal/sniff"
	"github.com/ragstat/ragstat/internal/trecfile"
)

// detect guesses the format from the first bytes of a file: JSON Lines
// when its first line reads as a run's (sniff.RunLine).
func detect(head []byte) input.Format { return input.DetectFormat(head, sniff.RunLine) }

// Options say how to read a run.
type Options struct {
	Format  input.Format
	Order   Order // ByScore when empty
	Workers int   // parallel parsers for TREC runs; 0 means all cores
	// NumericIDs accepts a JSON Lines id written as an integer (7 reads
	// as "7"); any other number stays an error.
	NumericIDs bool
}

// Read calls fn once per query with its ranked list, in no particular order
// and possibly from several goroutines at once: fn must be safe for
// concurrent use, and the Ranking is valid only during the call. A TREC run
// is read in one pass; if its lines turn out not to be grouped by query, it
// is read again, grouped in memory, and every query is delivered again: fn
// must let a later delivery of a query replace the earlier one. Problems
// (up to diag.Max) are returned together once reading stops.
func Read(f *input.File, opt Options, fn func(*Ranking) error) (input.Format, error) {
	if opt.Order == "" {
		opt.Order = ByScore
	}
	head, err := f.Head(4096)
	if err != nil {
		return opt.Format, err
	}
	format := opt.Format
	if format == input.FormatAuto {
		format = detect(head)
	}
	if sniff.LooksLikeJudgments(head) {
		return format, &diag.Error{File: f.Name, Msg: "looks like judgments (query iteration item grade, or {\"query\",\"item\",\"grade\"}), not a run",
			Hint: "did you swap {judgments} and the run?"}
	}
	rd := &reader{file: f.Name, order: opt.Order, fn: fn, checked: format == input.FormatTREC, numericIDs: opt.NumericIDs, byQuery: map[string]*diag.List{}}
	switch format {
	case input.FormatTREC:
		err = rd.trec(f, opt.Workers)
	default:
		err = rd.json(f, format)
	}
	rd.add(err)
	return format, rd.finish()
}

type reader struct {
	file    string
	order   Order
	fn      func(*Ranking) error
	mu      sync.Mutex
	errs    diag.List
	queries int
	listers sync.Pool
	checked bool // the format's reader checks ids and scores itself
	// numericIDs accepts JSON Lines ids written as integers
	numericIDs bool
	// byQuery holds each query's problems, replaced when the query is
	// delivered again; found counts every problem seen, to stop early.
	byQuery map[string]*diag.List
	found   int
}

// add records a problem; it reports whether reading should stop.
func (rd *reader) add(err error) bool {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if err == errStop {
		return true
	}
	return rd.errs.Add(err)
}

var errStop = &diag.Error{Msg: "too many problems"}

// finish gathers the problems of every query as last delivered, adds that
// no list was found when there is nothing else to say, and returns them
// all, sorted.
func (rd *reader) finish() error {
	for _, l := range rd.byQuery {
		rd.errs.Add(l)
	}
	if rd.errs.Len() == 0 && rd.queries == 0 {
		rd.add(&diag.Error{File: rd.file, Msg: "no ranked lists found"})
	}
	rd.errs.Sort()
	return rd.errs.Err()
}

// deliver orders and checks one query's entries, then hands them to fn.
func (rd *reader) deliver(query string, es []entry, scored bool) error {
	l, _ := rd.listers.Get().(*lister)
	if l == nil {
		l = newLister(rd.file, rd.order, rd.checked)
	}
	defer rd.listers.Put(l)
	errs := &diag.List{}
	list := l.rank(query, es, scored, errs)
	if errs.Len() == 0 {
		errs.Add(rd.fn(list))
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	rd.queries++
	if errs.Len() == 0 {
		delete(rd.byQuery, query)
		return nil
	}
	rd.byQuery[strings.Clone(query)] = errs
	if rd.found += errs.Len(); rd.found >= diag.Max {
		return errStop
	}
	return nil
}

func (rd *reader) trec(f *input.File, workers int) error {
	opt := trecfile.Options{Name: f.Name, Workers: workers, Redeliver: true}
	return trecfile.ReadRun(f.Open, opt, func(q *trecfile.RunQuery) error {
		return rd.deliver(q.Query, q.Docs, true)
	})
}

func (rd *reader) json(f *input.File, format input.Format) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	seen := map[string]int{}
	once := func(q string, line int) error {
		if first, dup := seen[q]; dup {
			return &diag.Error{File: rd.file, Line: line, Query: q, Msg: fmt.Sprintf("query listed twice (also line %d)", first), Hint: "give each query one list"}
		}
		seen[q] = line
		return nil
	}
	if format == input.FormatJSONL {
		return jsonin.Lines(r, f.Name, f, func(line int, data []byte) error {
			return rd.jsonLine(line, data, once)
		})
	}
	return rd.jsonObject(f)
}

type jsonlList struct {
	Query *jsonin.ID        `json:"query"`
	Items []json.RawMessage `json:"items"`
	Meta  json.RawMessage   `json:"meta"`
}

type scoredItem struct {
	ID    *jsonin.ID      `json:"id"`
	Score json.RawMessage `json:"score"`
}

func (rd *reader) jsonLine(line int, data []byte, once func(string, int) error) error {
	bad := func(q, item, msg string) error {
		return &diag.Error{File: rd.file, Line: line, Query: q, Item: item, Msg: msg,
			Hint: `write {"query":"q","items":["d1","d2"]} or items as {"id":"d1","score":2.5}`}
	}
	badID := func(q string, err error) error {
		e := bad(q, "", "").(*diag.Error)
		e.Cause = err
		return e
	}
	var v jsonlList
	if err := jsonin.Decode(data, &v); err != nil {
		return bad("", "", err.Error())
	}
	if v.Query == nil {
		return bad("", "", `missing or empty "query"`)
	}
	q, err := v.Query.Value("query", rd.numericIDs)
	if err != nil {
		return badID("", err)
	}
	if strings.TrimSpace(q) == "" {
		return bad("", "", `missing or empty "query"`)
	}
	if v.Items == nil {
		return bad(q, "", `missing "items" (an empty list is [])`)
	}
	if err := once(q, line); err != nil {
		return err
	}
	es := make([]entry, 0, len(v.Items))
	scored := false
	for i, raw := range v.Items {
		e := entry{Line: line, Rank: i + 1}
		if len(raw) > 0 && raw[0] != '{' {
			if i > 0 && scored {
				return bad(q, "", "items mix plain ids and {id, score} objects")
			}
			var id jsonin.ID
			if err := jsonin.Decode(raw, &id); err != nil {
				return bad(q, "", fmt.Sprintf("item %d: expected an id string or {\"id\":..,\"score\":..}, found %.80s", i+1, raw))
			}
			if e.Doc, err = id.Value(fmt.Sprintf("items[%d]", i), rd.numericIDs); err != nil {
				return badID(q, err)
			}
		} else {
			var si scoredItem
			if err := jsonin.Decode(raw, &si); err != nil || si.ID == nil || si.Score == nil {
				return bad(q, "", fmt.Sprintf("item %d: expected an id string or {\"id\":..,\"score\":..}, found %.80s", i+1, raw))
			}
			if i > 0 && !scored {
				return bad(q, "", "items mix plain ids and {id, score} objects")
			}
			scored = true
			if e.Doc, err = si.ID.Value(fmt.Sprintf("items[%d].id", i), rd.numericIDs); err != nil {
				return badID(q, err)
			}
			s, err := parseScore(si.Score)
			if err != nil {
				return bad(q, e.Doc, err.Error())
			}
			e.Score = s
		}
		es = append(es, e)
	}
	return rd.deliver(q, es, scored)
}

// parseScore reads a score given as a JSON value: a number, finite. A
// number in a string ("2.5") is refused, as every other type is.
func parseScore(raw json.RawMessage) (float64, error) {
	s := string(raw)
	if strings.HasPrefix(s, `"`) {
		return 0, fmt.Errorf("score %s is a string: write it as a JSON number, such as 2.5", diag.Quote(strings.Trim(s, `"`)))
	}
	v, err := strconv.ParseFloat(s, 64) // a JSON number's grammar is a subset of ParseFloat's
	if err != nil {
		return 0, fmt.Errorf("score %.80s is not a finite number", s)
	}
	return v, nil
}

func (rd *reader) jsonObject(f *input.File) error {
	data, err := f.ReadAll()
	if err != nil {
		return err
	}
	lists := map[string][]entry{}
	var order []string
	begin := func(q string, _ int) {
		if _, ok := lists[q]; !ok {
			order = append(order, q)
			lists[q] = []entry{}
		}
	}
	err = jsonin.Nested(data, rd.file, begin, func(q, item string, raw json.RawMessage, line int) error {
		s, err := parseScore(raw)
		if err != nil {
			return &diag.Error{File: rd.file, Line: line, Query: q, Item: item, Msg: err.Error()}
		}
		lists[q] = append(lists[q], entry{Doc: item, Score: s, Line: line})
		return nil
	})
	if err != nil {
		return err
	}
	for _, q := range order {
		if err := rd.deliver(q, lists[q], true); err != nil {
			return err
		}
	}
	return nil
}

// Entry is one returned item as a reader found it, before ordering: its
// id, score, rank and line (or row) number.
type Entry = trecfile.RunDoc

// Lists delivers ranked lists that another reader (Parquet, say) gathered
// by query exactly as Read delivers a file's: each query's entries ordered
// by opt.Order and checked (empty ids, scores that are not finite numbers,
// an item listed twice, a repeated rank under the rank order), fn called once
// per query in query order. Problems are returned together, as Read does.
func Lists(file string, opt Options, lists map[string][]Entry, fn func(*Ranking) error) error {
	if opt.Order == "" {
		opt.Order = ByScore
	}
	rd := &reader{file: file, order: opt.Order, fn: fn, byQuery: map[string]*diag.List{}}
	for _, q := range slices.Sorted(maps.Keys(lists)) {
		if rd.add(rd.deliver(q, lists[q], true)) {
			break
		}
	}
	return rd.finish()
}
