package judgments

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
	"github.com/ragstat/ragstat/internal/sniff"
	"github.com/ragstat/ragstat/internal/trecfile"
)

// detect guesses the format from the first bytes of a file: JSON Lines
// when its first line reads as a judgment's (sniff.JudgmentLine).
func detect(head []byte) input.Format { return input.DetectFormat(head, sniff.JudgmentLine) }

// Options say how to read judgments.
type Options struct {
	Format input.Format // input.FormatAuto detects it
	Scale  Scale        // allowed grades; the zero value means DefaultScale
	// NumericIDs accepts a JSON Lines id written as an integer (7 reads
	// as "7"); any other number stays an error.
	NumericIDs bool
	// Keep, when set, keeps only the judgments of the queries it accepts
	// (one shard of a split by query), so that memory holds those alone.
	// Every line is still checked as it is read; a repeated (query, item)
	// pair is found among the kept queries.
	Keep func(query string) bool
}

// Read reads every judgment of f. Problems are gathered (up to diag.Max)
// and returned together as one error.
func Read(f *input.File, opt Options) (*Set, error) {
	rd, err := readWith(f, opt, nil)
	if err != nil {
		return nil, err
	}
	return rd.done()
}

// Stream reads f as Read does, checking every line the same way, but hands
// each judgment to fn as soon as it is read instead of holding the set, so
// that memory does not grow with the file. In the JSON object format each
// query first comes as a Judgment with an empty Item, where it opens, so
// that a query without judgments is seen too. Repeated (query, item) pairs are not looked for: New finds them, given
// one query's judgments, exactly as Read reports them. Stream returns the
// format read.
func Stream(f *input.File, opt Options, fn func(Judgment)) (input.Format, error) {
	rd, err := readWith(f, opt, fn)
	if err != nil {
		return input.FormatAuto, err
	}
	return rd.set.Format, rd.problems()
}

// readWith reads f into a new set, or hands each judgment to emit when it is
// set; the problems found in the lines are left in the reader.
func readWith(f *input.File, opt Options, emit func(Judgment)) (*reader, error) {
	if opt.Scale == (Scale{}) {
		opt.Scale = DefaultScale
	}
	if err := opt.Scale.check(); err != nil {
		return nil, fmt.Errorf("judgments: Scale %s: %w", opt.Scale, err)
	}
	head, err := f.Head(4096)
	if err != nil {
		return nil, err
	}
	format := opt.Format
	if format == input.FormatAuto {
		format = detect(head)
	}
	if sniff.LooksLikeRun(head) {
		return nil, &diag.Error{File: f.Name, Msg: "looks like a run (query Q0 item rank score tag, or {\"query\",\"items\"}), not judgments",
			Hint: "did you swap {judgments} and the run?"}
	}
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rd := &reader{set: newSet(f.Name, format), scale: opt.Scale, numericIDs: opt.NumericIDs, keep: opt.Keep, emit: emit}
	switch format {
	case input.FormatTREC:
		err = rd.trec(r)
	case input.FormatJSONL:
		var buf []byte // one line at a time: nothing a line is read into is kept
		err = jsonin.LinesInto(r, f.Name, f, 0, func() []byte { return buf }, func(line int, data []byte) error {
			buf = data
			return rd.jsonLine(line, data)
		})
	case input.FormatJSON:
		err = rd.json(f)
	}
	rd.errs.Add(err)
	return rd, nil
}

// New builds a Set of judgments held in memory, checked as Read checks a
// file: ids present, grades on the scale (DefaultScale when zero), spans
// not blank, no (query, item) pair twice. name labels the problems.
func New(name string, js []Judgment, scale Scale) (*Set, error) {
	if scale == (Scale{}) {
		scale = DefaultScale
	}
	if err := scale.check(); err != nil {
		return nil, fmt.Errorf("judgments: scale %s: %w", scale, err)
	}
	rd := reader{set: newSet(name, input.FormatAuto), scale: scale}
	for _, j := range js {
		if rd.errs.Add(rd.accept(j)) {
			break
		}
	}
	return rd.done()
}

// done indexes the set read and returns it, or every problem found.
func (rd *reader) done() (*Set, error) {
	s := rd.set
	if !rd.errs.Full() {
		s.finish(&rd.errs)
	}
	if err := rd.problems(); err != nil {
		return nil, err
	}
	return s, nil
}

// problems returns every problem found, sorted, with that no judgment was
// found when there is nothing else to say.
func (rd *reader) problems() error {
	if rd.errs.Len() == 0 && rd.count == 0 && rd.skipped == 0 {
		rd.errs.Add(&diag.Error{File: rd.set.File, Msg: "no judgments found"})
	}
	rd.errs.Sort()
	return rd.errs.Err()
}

type reader struct {
	set        *Set
	scale      Scale
	numericIDs bool
	keep       func(query string) bool
	skipped    int            // judgments of queries keep rejects
	count      int            // judgments accepted
	emit       func(Judgment) // Stream's: receives each judgment instead of set
	errs       diag.List
	lastQuery  string // the query id of the JSON line before, shared by the lines after it that repeat it
}

// bad reports a problem; it keeps copies of the ids, which may share a
// buffer that is read into again.
func (rd *reader) bad(line int, q, item, msg, hint string) error {
	return &diag.Error{File: rd.set.File, Line: line, Query: strings.Clone(q), Item: strings.Clone(item), Msg: msg, Hint: hint}
}

// accept validates a parsed judgment and adds it.
func (rd *reader) accept(j Judgment) error {
	blank := rd.set.Format != input.FormatTREC // the TREC reader rejects empty fields itself
	switch {
	case blank && strings.TrimSpace(j.Query) == "":
		return rd.bad(j.Line, "", j.Item, "empty query id", "every judgment names its query")
	case blank && strings.TrimSpace(j.Item) == "":
		return rd.bad(j.Line, j.Query, "", "empty item id", "every judgment names its item")
	case !rd.scale.Contains(j.Grade):
		return rd.bad(j.Line, j.Query, j.Item, fmt.Sprintf("grade %d is outside the scale %s", j.Grade, rd.scale),
			"fix the grade, or declare the scale with {grades} MIN..MAX")
	case j.Line > maxLine:
		return rd.bad(j.Line, j.Query, j.Item, fmt.Sprintf("line %d is past %d, the most lines a judgments file may have", j.Line, maxLine), "split the file")
	}
	for _, sp := range j.Spans {
		if strings.TrimSpace(sp) == "" {
			return rd.bad(j.Line, j.Query, j.Item, "empty span", "a span is the answer-bearing text; leave it out rather than empty")
		}
	}
	if rd.keep != nil && !rd.keep(j.Query) {
		rd.skipped++
		return nil
	}
	rd.count++
	switch {
	case rd.emit != nil:
		rd.emit(j)
	case j.LLM != nil:
		if err := rd.set.addLabel(j); err != nil {
			return rd.bad(j.Line, j.Query, j.Item, err.Error(), "keep one LLM label per (query, item)")
		}
	default:
		rd.set.add(j)
	}
	return nil
}

// trec reads TREC qrels a stretch of one query's lines at a time: a
// stretch whose grades are all on the scale is added whole to the set; one
// that is handed on (Stream) or holds a problem goes through accept line
// by line.
func (rd *reader) trec(r io.Reader) error {
	return trecfile.ReadQrelsGroups(r, trecfile.Options{Name: rd.set.File}, func(g *trecfile.QrelsGroup) error {
		if rd.emit == nil && rd.onScale(g.Grades) && g.Lines[len(g.Lines)-1] <= maxLine {
			if rd.keep != nil && !rd.keep(g.Query) {
				rd.skipped += len(g.Grades)
				return nil
			}
			rd.count += len(g.Grades)
			rd.set.addGroup(g)
			return nil
		}
		for i, grade := range g.Grades {
			rd.errs.Add(rd.accept(Judgment{Query: g.Query, Item: strings.Clone(g.Doc(i)), Grade: grade, Line: g.Lines[i]}))
			if rd.errs.Full() {
				return errStop
			}
		}
		return nil
	})
}

// onScale reports whether every grade is on the scale.
func (rd *reader) onScale(grades []int) bool {
	for _, g := range grades {
		if !rd.scale.Contains(g) {
			return false
		}
	}
	return true
}

var errStop = &diag.Error{Msg: "too many problems"}

// maxLine is the last line a Set can record: it holds line numbers as
// 32-bit integers.
const maxLine = math.MaxInt32

type jsonlJudgment struct {
	Query *jsonin.ID      `json:"query"`
	Item  *jsonin.ID      `json:"item"`
	Grade json.RawMessage `json:"grade"`
	Spans []string        `json:"spans"`
	Facts []string        `json:"facts"`
	Meta  json.RawMessage `json:"meta"`
	wireProvenance
}

// quickLine is the common line, {"query":"q","item":"d","grade":3}, as
// read in place: each field's value as written, strings without their
// quotes; nil where the key is absent.
type quickLine struct{ query, item, grade []byte }

// read reads data when it is the common line, with keys spelt so, each
// once, in any order, string ids and a number grade, as Decode would read
// it, and reports whether it was.
func (v *quickLine) read(data []byte) bool {
	return jsonin.Flat(data, func(key, value []byte) bool {
		switch k := string(key); {
		case k == "query" && v.query == nil && value[0] == '"':
			v.query = value[1 : len(value)-1]
		case k == "item" && v.item == nil && value[0] == '"':
			v.item = value[1 : len(value)-1]
		case k == "grade" && v.grade == nil && (value[0] == '-' || '0' <= value[0] && value[0] <= '9'):
			v.grade = value
		default:
			return false
		}
		return true
	})
}

// quick accepts data when it is the common line with its three fields
// and an integer grade, without allocating for the ids where it can: the
// query id is shared with the line before when it repeats it, and the item
// id is read in place when the set copies it anyway (Stream hands it on, so
// it gets a string of its own). It reports whether it took the line.
func (rd *reader) quick(line int, data []byte) (bool, error) {
	var v quickLine
	if !v.read(data) || v.query == nil || v.item == nil || v.grade == nil {
		return false, nil
	}
	g, err := grade(unsafe.String(unsafe.SliceData(v.grade), len(v.grade)))
	if err != nil {
		return false, nil
	}
	if string(v.query) != rd.lastQuery {
		rd.lastQuery = string(v.query)
	}
	var item string
	if rd.emit == nil {
		item = unsafe.String(unsafe.SliceData(v.item), len(v.item))
	} else {
		item = string(v.item)
	}
	return true, rd.accept(Judgment{Query: rd.lastQuery, Item: item, Grade: g, Line: line})
}

func (rd *reader) jsonLine(line int, data []byte) error {
	if ok, err := rd.quick(line, data); ok {
		return err
	}
	var v jsonlJudgment
	if err := jsonin.Decode(data, &v); err != nil {
		return rd.bad(line, "", "", err.Error(), `write {"query":"q","item":"d","grade":3}`)
	}
	if v.Query == nil {
		return rd.bad(line, "", "", `missing "query"`, "")
	}
	q, err := v.Query.Value("query", rd.numericIDs)
	if err != nil {
		return &diag.Error{File: rd.set.File, Line: line, Cause: err}
	}
	if v.Item == nil {
		return rd.bad(line, q, "", `missing "item"`, "")
	}
	item, err := v.Item.Value("item", rd.numericIDs)
	if err != nil {
		return &diag.Error{File: rd.set.File, Line: line, Query: strings.Clone(q), Cause: err}
	}
	if v.Grade == nil {
		return rd.bad(line, q, item, `missing "grade"`, "")
	}
	g, err := grade(string(v.Grade))
	if err != nil {
		return rd.bad(line, q, item, err.Error(), "")
	}
	prov, err := v.provenance()
	if err != nil {
		return rd.bad(line, q, item, err.Error(), `an LLM label reads {"source":"llm","model":"M","prompt_sha256":"…","time":"2025-01-02T03:04:05Z",…}; a person's grade has none of these`)
	}
	return rd.accept(Judgment{Query: q, Item: item, Grade: g, Spans: v.Spans, Facts: v.Facts, Meta: v.Meta, Line: line, LLM: prov})
}

// grade reads a JSON integer; a string, a fraction or an exponent is not one.
func grade(s string) (int, error) {
	g, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("grade %s is beyond %d..%d, the grades a judgment holds", s, MinGrade, MaxGrade)
	case err != nil:
		return 0, fmt.Errorf("grade %s is not an integer", s)
	}
	return g, nil
}

func (rd *reader) json(f *input.File) error {
	data, err := f.ReadAll()
	if err != nil {
		return err
	}
	begin := func(q string, line int) {
		switch {
		case rd.keep != nil && !rd.keep(q):
		case rd.emit != nil:
			rd.emit(Judgment{Query: q, Line: line})
		default:
			rd.set.query(q, line)
		}
	}
	return jsonin.Nested(data, rd.set.File, begin, func(q, item string, raw json.RawMessage, line int) error {
		g, err := grade(string(raw))
		if err != nil {
			return rd.bad(line, q, item, err.Error(), "")
		}
		return rd.accept(Judgment{Query: q, Item: item, Grade: g, Line: line})
	})
}
