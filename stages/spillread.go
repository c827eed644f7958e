package stages

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// judgmentSource hands every judgment of a file to emit, as
// judgments.Stream does, and returns the format read.
type judgmentSource func(emit func(judgments.Judgment)) (judgments.Format, error)

// spillInputs reads the judgments (from src; file names them) and the
// topics file openTopics opens into a Spilled in dir, keeping the queries
// keep accepts (nil: all). Every line is checked as judgments.Read and
// topics.ReadOnly check it, and the same problems are returned, the
// judgments' first (the topics are not read when the judgments fail).
func spillInputs(file string, src judgmentSource, openTopics func() (*input.File, error), keep func(string) bool, scale judgments.Scale, dir string) (_ *Spilled, err error) {
	s := &Spilled{JudgmentsFile: file, dir: dir, scale: scale}
	var tempA, tempB *os.File
	defer func() {
		removeTemp(tempA)
		removeTemp(tempB)
		if err != nil {
			s.Close()
		}
	}()
	if tempA, err = s.temp(); err != nil {
		return nil, err
	}
	chunks, a, format, readErr, err := spillJudgments(tempA, src)
	if err != nil {
		return nil, err
	}
	s.Format = format
	var errs diag.List
	errs.Add(readErr)
	groups, err := groupChunks(chunks, a)
	if err != nil {
		return nil, err
	}
	if errs.Len() > 0 {
		if !errs.Full() {
			if err := s.writeGroups(groups, chunks, a, nil, nil, &errs); err != nil {
				return nil, err
			}
		}
		errs.Sort()
		return nil, errs.Err()
	}
	tf, err := openTopics()
	if err != nil {
		return nil, err
	}
	s.TopicsFile = tf.Name
	if tempB, err = s.temp(); err != nil {
		return nil, err
	}
	tops, b, err := s.spillTopics(tempB, tf, keep)
	if err != nil {
		return nil, err
	}
	if s.f, err = s.temp(); err != nil {
		return nil, err
	}
	if err := s.writeGroups(groups, chunks, a, b, tops, &errs); err != nil {
		return nil, err
	}
	if errs.Len() > 0 {
		errs.Sort()
		return nil, errs.Err()
	}
	return s, nil
}

// spillJudgments writes the judgments src reads to f as chunks, a chunk a
// run of judgments of one query, and returns each chunk's hash and
// offset, in reading order, the problems found in the lines (readErr) and
// any failure to write (err).
func spillJudgments(f *os.File, src judgmentSource) (chunks []spillEntry, a *appender, format judgments.Format, readErr, err error) {
	a = newAppender(f)
	var cur []judgments.Judgment
	flush := func() {
		if len(cur) == 0 || err != nil {
			return
		}
		var e encoder
		e.string(cur[0].Query)
		e.uint(uint64(cur[0].Line))
		n := 0
		for _, j := range cur {
			if j.Item != "" {
				n++
			}
		}
		e.uint(uint64(n))
		for _, j := range cur {
			if j.Item != "" {
				e.judgment(j)
			}
		}
		var off int64
		off, err = a.add(e)
		chunks = append(chunks, entry(cur[0].Query, off))
		cur = cur[:0]
	}
	format, readErr = src(func(j judgments.Judgment) {
		if len(cur) > 0 && (cur[0].Query != j.Query || j.Item == "") {
			flush()
		}
		cur = append(cur, j)
	})
	flush()
	if err == nil {
		err = a.w.Flush()
	}
	return chunks, a, format, readErr, err
}

// groups says which chunks belong to a query read in several runs: more
// lists, by the offset of a query's first chunk, the offsets of its
// others, which skip holds. Most queries have one run (judgments come
// grouped by query), so this stays small.
type groups struct {
	more map[int64][]int64
	skip map[int64]bool
}

// groupChunks finds the queries read in several runs and leaves the
// chunks in reading order.
func groupChunks(chunks []spillEntry, a *appender) (groups, error) {
	g := groups{more: map[int64][]int64{}, skip: map[int64]bool{}}
	slices.Sort(chunks) // by hash, then offset
	for i := 0; i < len(chunks); {
		end := i + 1
		for end < len(chunks) && chunks[end].hash() == chunks[i].hash() {
			end++
		}
		if end-i > 1 { // one query's runs, or ids whose hashes agree
			first := map[string]int64{}
			for _, c := range chunks[i:end] { // in reading order
				rec, err := a.read(c.off())
				if err != nil {
					return g, err
				}
				id := recordID(rec)
				if at, ok := first[id]; ok {
					g.more[at] = append(g.more[at], c.off())
					g.skip[c.off()] = true
				} else {
					first[id] = c.off()
				}
			}
		}
		i = end
	}
	slices.SortFunc(chunks, func(x, y spillEntry) int { return cmp.Compare(x.off(), y.off()) })
	return g, nil
}

// spillTopics writes each topic kept to f (id, line, line bytes) and
// returns their hashes and offsets, sorted, with the high bit of the
// offset set for an answerable topic. A repeated id is an error, as
// topics.ReadOnly reports it.
func (s *Spilled) spillTopics(f *os.File, tf *input.File, keep func(string) bool) ([]spillEntry, *appender, error) {
	b := newAppender(f)
	var tops []spillEntry
	var werr error
	parse, readErr := topics.Stream(tf, keep, func(t *topics.Topic, data []byte) error {
		var e encoder
		e.string(t.ID)
		e.uint(uint64(t.Line))
		e.bytes(data)
		answerable := uint64(0)
		if t.Answerable {
			answerable = 1
		}
		e.uint(answerable)
		off, err := b.add(e)
		if err != nil && werr == nil {
			werr = err
		}
		tops = append(tops, entry(t.ID, off))
		return nil
	})
	if werr != nil {
		return nil, nil, werr
	}
	s.parse = parse
	slices.Sort(tops)
	var repeated []error
	for i := 0; i < len(tops); {
		end := i + 1
		for end < len(tops) && tops[end].hash() == tops[i].hash() {
			end++
		}
		if end-i > 1 { // a repeated id, or ids whose hashes collide
			firstLine := map[string]int{}
			for _, t := range tops[i:end] { // in reading order
				tr, err := topicRecord(b, t)
				if err != nil {
					return nil, nil, err
				}
				id, line := tr.id, tr.line
				if at, ok := firstLine[id]; ok {
					repeated = append(repeated, &diag.Error{File: tf.Name, Line: line, Query: id, Msg: fmt.Sprintf("topic repeated (also line %d)", at)})
				} else {
					firstLine[id] = line
				}
			}
		}
		i = end
	}
	if err := firstByLine(readErr, repeated); err != nil {
		return nil, nil, err
	}
	return tops, b, nil
}

// topicRec is a topic's record while spilling: id, line, line bytes and
// whether it is answerable.
type topicRec struct {
	id         string
	line       int
	raw        []byte
	answerable bool
}

// topicRecord reads the topic record of t.
func topicRecord(b *appender, t spillEntry) (topicRec, error) {
	rec, err := b.read(t.off())
	if err != nil {
		return topicRec{}, err
	}
	d := decoder{b: rec}
	r := topicRec{id: string(d.bytes()), line: int(d.uint()), raw: d.bytes()}
	r.answerable = d.uint() == 1
	return r, d.err
}

// writeGroups checks each query's judgments for repeated items (New
// reports them as Read does), in the order of their first judgment,
// adding the problems to errs, and, when b is given, writes the queries'
// records to the spill file: the judged queries first, in that order,
// then the topics without judgments.
func (s *Spilled) writeGroups(g groups, chunks []spillEntry, a *appender, b *appender, tops []spillEntry, errs *diag.List) error {
	var c *appender
	if b != nil {
		c = newAppender(s.f)
	}
	matched := make([]bool, len(tops))
	for _, ch := range chunks {
		if g.skip[ch.off()] {
			continue
		}
		var id string
		var first int
		var js []judgments.Judgment
		for k, off := range append([]int64{ch.off()}, g.more[ch.off()]...) {
			rec, err := a.read(off)
			if err != nil {
				return err
			}
			d := decoder{b: rec}
			id = string(d.bytes())
			line := int(d.uint())
			if k == 0 {
				first = line
			}
			for range d.uint() {
				js = append(js, d.judgment(id))
			}
			if d.err != nil {
				return d.err
			}
		}
		if len(js) > 0 {
			if _, err := judgments.New(s.JudgmentsFile, js, s.scale); err != nil {
				errs.Add(err) // past diag.Max too: Read counts every repeat
			}
		}
		if c == nil {
			continue
		}
		t, tr, err := findTopic(b, tops, id)
		if err != nil {
			return err
		}
		pos := s.answerable + 1
		if t >= 0 {
			matched[t] = true
			if !tr.answerable {
				pos = 0
			}
		}
		var e encoder
		e.string(id)
		e.uint(uint64(pos))
		topicField(&e, tr)
		e.uint(1)
		e.uint(uint64(first))
		e.uint(uint64(len(js)))
		for _, j := range js {
			e.judgment(j)
		}
		if _, err := c.add(e); err != nil {
			return err
		}
		s.judged++
		if pos > 0 {
			s.answerable++
		}
	}
	if c == nil {
		return nil
	}
	s.judgedEnd = c.off
	for t := range tops {
		if matched[t] {
			continue
		}
		tr, err := topicRecord(b, tops[t])
		if err != nil {
			return err
		}
		var e encoder
		e.string(tr.id)
		e.uint(0)
		topicField(&e, tr)
		e.uint(0)
		if _, err := c.add(e); err != nil {
			return err
		}
	}
	if err := c.w.Flush(); err != nil {
		return err
	}
	return s.buildIndex(c.off)
}

// buildIndex indexes the spill file's records, size bytes.
func (s *Spilled) buildIndex(size int64) error {
	b := indexBuilder{temp: s.temp}
	defer b.close()
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, size), 1<<16)
	var rec []byte
	for off := int64(0); off < size; {
		var n [4]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return fmt.Errorf("reading the spill file: %w", err)
		}
		rec = slices.Grow(rec[:0], int(binary.LittleEndian.Uint32(n[:])))[:binary.LittleEndian.Uint32(n[:])]
		if _, err := io.ReadFull(r, rec); err != nil {
			return fmt.Errorf("reading the spill file: %w", err)
		}
		if err := b.add(entry(recordID(rec), off)); err != nil {
			return err
		}
		off += 4 + int64(len(rec))
	}
	var err error
	s.index, err = b.finish()
	return err
}

// findTopic returns the position in tops of the topic id and its record,
// or -1.
func findTopic(b *appender, tops []spillEntry, id string) (int, topicRec, error) {
	h := queryHash(id)
	i, _ := slices.BinarySearchFunc(tops, h, func(e spillEntry, h uint64) int { return cmp.Compare(e.hash(), h) })
	for ; i < len(tops) && tops[i].hash() == h; i++ {
		tr, err := topicRecord(b, tops[i])
		if err != nil {
			return -1, tr, err
		}
		if tr.id == id {
			return i, tr, nil
		}
	}
	return -1, topicRec{}, nil
}

// topicField appends the topic's line and bytes (line 0: none).
func topicField(e *encoder, tr topicRec) {
	e.uint(uint64(tr.line))
	if tr.line > 0 {
		e.bytes(tr.raw)
	}
}
