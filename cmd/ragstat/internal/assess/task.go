package assess

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/topics"
)

// Entry is one queue entry with what the assessor is shown.
type Entry struct {
	pool.Entry
	Pos     int // index in Task.Entries
	InQuery int // 1-based position among its query's entries
	Topic   *topics.Topic
	Passage *corpus.Item
}

// Key is the entry's (query, item) pair.
func (e *Entry) Key() Key { return Key{e.Query, e.Item} }

// Task is a queue joined with the corpus and topics: everything an assessor
// is asked to judge, in order.
type Task struct {
	Entries []*Entry
	byOrder map[int]*Entry
	byQuery map[string][]*Entry
}

// NewTask joins the queue (as ReadQueue returns it: sorted by order, without
// repeats) with the corpus and topics. A queue entry whose item is missing
// from the corpus or has no text, or whose query is missing from the topics
// or has no text, is an error naming the queue line; up to diag.Max are
// reported together.
func NewTask(queueFile string, q []pool.Entry, c *corpus.Corpus, ts *topics.Set) (*Task, error) {
	t := &Task{byOrder: map[int]*Entry{}, byQuery: map[string][]*Entry{}}
	var errs diag.List
	seen := map[Key]int{}
	for _, qe := range q {
		bad := func(msg, hint string) {
			errs.Add(&diag.Error{File: queueFile, Line: qe.Line, Query: qe.Query, Item: qe.Item, Msg: msg, Hint: hint})
		}
		topic, item := ts.Get(qe.Query), c.Get(qe.Item)
		k := Key{qe.Query, qe.Item}
		switch {
		case seen[k] > 0 || t.byOrder[qe.Order] != nil:
			bad("duplicate queue entry", "each pair and each order appears once")
		case topic == nil:
			bad(fmt.Sprintf("query is not in the topics file %s", ts.File), "pool from runs of these topics, or give the topics the queue was made for")
		case strings.TrimSpace(topic.Text) == "":
			bad(fmt.Sprintf("the topic has no text (%s:%d): an assessor needs to read the query", ts.File, topic.Line), "")
		case item == nil:
			bad(fmt.Sprintf("item is not in the corpus %s", c.File), "give the corpus the runs retrieved from")
		case strings.TrimSpace(item.Text) == "":
			bad(fmt.Sprintf("the item has no text in the corpus (%s:%d): an assessor needs to read it", c.File, item.Line), "")
		}
		if errs.Full() {
			break
		}
		if errs.Len() > 0 {
			continue
		}
		seen[k] = qe.Line
		e := &Entry{Entry: qe, Pos: len(t.Entries), InQuery: len(t.byQuery[qe.Query]) + 1, Topic: topic, Passage: item}
		t.Entries = append(t.Entries, e)
		t.byOrder[qe.Order] = e
		t.byQuery[qe.Query] = append(t.byQuery[qe.Query], e)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if len(t.Entries) == 0 {
		return nil, fmt.Errorf("%s: the queue is empty", queueFile)
	}
	return t, nil
}

// ByOrder returns the entry with that order, or nil.
func (t *Task) ByOrder(order int) *Entry { return t.byOrder[order] }

// Query returns the entries of one query, in order.
func (t *Task) Query(id string) []*Entry { return t.byQuery[id] }

// Resume is where an assessor carries on: the first entry neither graded nor
// skipped, else the first skipped one, else nil (all graded).
func (t *Task) Resume(w *Work) *Entry { return t.after(w, -1) }

// Next is the first entry after e (wrapping round) that the assessor has not
// graded, preferring those not skipped; nil when all are graded.
func (t *Task) Next(w *Work, e *Entry) *Entry { return t.after(w, e.Pos) }

func (t *Task) after(w *Work, pos int) *Entry {
	var skipped *Entry
	n := len(t.Entries)
	for i := 1; i <= n; i++ {
		e := t.Entries[(pos+i+n)%n]
		if _, done := w.Grades[e.Key()]; done {
			continue
		}
		if !w.Skipped[e.Key()] {
			return e
		}
		if skipped == nil {
			skipped = e
		}
	}
	return skipped
}

// Progress counts graded entries, overall and for one query.
type Progress struct {
	Done, Total           int
	QueryDone, QueryTotal int
	Skipped               int
}

// Progress is the assessor's progress, with e's query for the per-query part.
func (t *Task) Progress(w *Work, e *Entry) Progress {
	p := Progress{Total: len(t.Entries)}
	for _, x := range t.Entries {
		_, done := w.Grades[x.Key()]
		if done {
			p.Done++
		} else if w.Skipped[x.Key()] {
			p.Skipped++
		}
		if e != nil && x.Query == e.Query {
			p.QueryTotal++
			if done {
				p.QueryDone++
			}
		}
	}
	return p
}
