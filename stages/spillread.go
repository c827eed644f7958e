package stages

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/scratch"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// judgmentSource hands every judgment of a file to emit, as
// judgments.Stream does, and returns the format read.
type judgmentSource func(emit func(judgments.Judgment)) (input.Format, error)

// Spill reads the judgments of file (which src hands to emit, as
// judgments.Stream does) and the topics openTopics opens, read under topt
// (what they keep, what supports their facts), into a Spilled in dir.
// Every line is checked as judgments.Read and topics.ReadWith check it,
// and the same problems are returned, the judgments' first (the topics are
// not read when the judgments fail).
func Spill(file string, src func(emit func(judgments.Judgment)) (input.Format, error), openTopics func() (*input.File, error), topt topics.Options, scale judgments.Scale, dir string) (_ *Spilled, err error) {
	s := &Spilled{JudgmentsFile: file, dir: dir, scale: scale}
	var tempA, tempB *os.File
	defer func() {
		scratch.Remove(tempA)
		scratch.Remove(tempB)
		if err != nil {
			s.Close()
		}
	}()
	if tempA, err = s.temp(); err != nil {
		return nil, err
	}
	chunks, a, format, readErr, err := spillJudgments(tempA, src, s.temp)
	if err != nil {
		return nil, err
	}
	s.Format = format
	var errs diag.List
	errs.Add(readErr)
	defer chunks.close()
	groups, err := groupChunks(chunks, a)
	if err != nil {
		return nil, err
	}
	if errs.Len() > 0 {
		if !errs.Full() {
			if err := s.writeGroups(groups, a, nil, nil, &errs); err != nil {
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
	tops, b, err := s.spillTopics(tempB, tf, topt)
	if err != nil {
		return nil, err
	}
	defer tops.close()
	if s.f, err = s.temp(); err != nil {
		return nil, err
	}
	if err := s.writeGroups(groups, a, b, tops, &errs); err != nil {
		return nil, err
	}
	if errs.Len() > 0 {
		errs.Sort()
		return nil, errs.Err()
	}
	return s, nil
}

// spillJudgments writes the judgments src reads to f as chunks, a chunk a
// run of judgments of one query, and returns their index (a temporary
// file beside f), the problems found in the lines (readErr) and any
// failure to write (err).
func spillJudgments(f *os.File, src judgmentSource, temp func() (*os.File, error)) (chunks *diskIndex, a *appender, format input.Format, readErr, err error) {
	a = newAppender(f)
	b := indexBuilder{temp: temp}
	defer b.close()
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
		if off, err = a.add(e); err == nil {
			err = b.add(entry(cur[0].Query, off))
		}
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
	if err == nil {
		chunks, err = b.finish()
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

// groupChunks finds the queries read in several runs.
func groupChunks(chunks *diskIndex, a *appender) (groups, error) {
	g := groups{more: map[int64][]int64{}, skip: map[int64]bool{}}
	err := chunks.shared(func(same []spillEntry) error { // one query's runs, or ids whose hashes agree
		first := map[string]int64{}
		for _, c := range same { // in reading order
			rec, err := a.read(c.off())
			if err != nil {
				return err
			}
			id := recordID(rec)
			if at, ok := first[id]; ok {
				g.more[at] = append(g.more[at], c.off())
				g.skip[c.off()] = true
			} else {
				first[id] = c.off()
			}
		}
		return nil
	})
	return g, err
}

// spillTopics writes each topic kept to f (id, line, line bytes and
// whether it is answerable) and returns their index (a temporary file). A
// repeated id is an error, as topics.ReadWith reports it.
func (s *Spilled) spillTopics(f *os.File, tf *input.File, topt topics.Options) (*diskIndex, *appender, error) {
	b := newAppender(f)
	ib := indexBuilder{temp: s.temp}
	defer ib.close()
	var werr error
	parse, readErr := topics.Stream(tf, topt, func(t *topics.Topic, data []byte) error {
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
		if err == nil {
			err = ib.add(entry(t.ID, off))
		}
		if err != nil && werr == nil {
			werr = err
		}
		return nil
	})
	if werr != nil {
		return nil, nil, werr
	}
	s.parse = parse
	tops, err := ib.finish()
	if err != nil {
		return nil, nil, err
	}
	var repeated []error
	err = tops.shared(func(same []spillEntry) error { // a repeated id, or ids whose hashes collide
		firstLine := map[string]int{}
		for _, t := range same { // in reading order
			tr, err := topicRecord(b, t.off())
			if err != nil {
				return err
			}
			id, line := tr.id, tr.line
			if at, ok := firstLine[id]; ok {
				repeated = append(repeated, &diag.Error{File: tf.Name, Line: line, Query: id, Msg: fmt.Sprintf("topic repeated (also line %d)", at)})
			} else {
				firstLine[id] = line
			}
		}
		return nil
	})
	if err == nil {
		err = firstByLine(readErr, repeated)
	}
	if err != nil {
		tops.close()
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

// topicRecord reads the topic record at off.
func topicRecord(b *appender, off int64) (topicRec, error) {
	rec, err := b.read(off)
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
func (s *Spilled) writeGroups(g groups, a *appender, b *appender, tops *diskIndex, errs *diag.List) error {
	var c *appender
	var matched []uint64 // a bit a topic, by its position in tops
	if b != nil {
		c = newAppender(s.f)
		matched = make([]uint64, (tops.n+63)/64)
	}
	err := eachRecord(a.f, a.off, "a temporary file of stages", func(at int64, rec []byte) error {
		if g.skip[at] {
			return nil
		}
		var id string
		var first int
		var js []judgments.Judgment
		for k, off := range append([]int64{at}, g.more[at]...) {
			if k > 0 {
				var err error
				if rec, err = a.read(off); err != nil {
					return err
				}
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
			return nil
		}
		t, tr, err := findTopic(b, tops, id)
		if err != nil {
			return err
		}
		pos := s.answerable + 1
		if t >= 0 {
			matched[t/64] |= 1 << (t % 64)
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
		return nil
	})
	if err != nil || c == nil {
		return err
	}
	s.judgedEnd = c.off
	err = tops.scan(func(t int, te spillEntry) error {
		if matched[t/64]&(1<<(t%64)) != 0 {
			return nil
		}
		tr, err := topicRecord(b, te.off())
		if err != nil {
			return err
		}
		var e encoder
		e.string(tr.id)
		e.uint(0)
		topicField(&e, tr)
		e.uint(0)
		_, err = c.add(e)
		return err
	})
	if err != nil {
		return err
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
	err := eachRecord(s.f, size, "a temporary file of stages", func(off int64, rec []byte) error { return b.add(entry(recordID(rec), off)) })
	if err == nil {
		s.index, err = b.finish()
	}
	return err
}

// eachRecord calls fn with the offset and bytes of each record of f, size
// bytes, in order; the bytes are reused after fn returns. what names f in
// a failure to read it.
func eachRecord(f *os.File, size int64, what string, fn func(off int64, rec []byte) error) error {
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<16)
	var rec []byte
	for off := int64(0); off < size; {
		var n [4]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return fmt.Errorf("reading %s: %w", what, err)
		}
		rec = slices.Grow(rec[:0], int(binary.LittleEndian.Uint32(n[:])))[:binary.LittleEndian.Uint32(n[:])]
		if _, err := io.ReadFull(r, rec); err != nil {
			return fmt.Errorf("reading %s: %w", what, err)
		}
		if err := fn(off, rec); err != nil {
			return err
		}
		off += 4 + int64(len(rec))
	}
	return nil
}

// findTopic returns the position in tops of the topic id and its record,
// or -1.
func findTopic(b *appender, tops *diskIndex, id string) (int, topicRec, error) {
	pos, found := -1, topicRec{}
	err := tops.each(queryHash(id), func(at int, off int64) (bool, error) {
		tr, err := topicRecord(b, off)
		if err != nil || tr.id != id {
			return false, err
		}
		pos, found = at, tr
		return true, nil
	})
	return pos, found, err
}

// topicField appends the topic's line and bytes (line 0: none).
func topicField(e *encoder, tr topicRec) {
	e.uint(uint64(tr.line))
	if tr.line > 0 {
		e.bytes(tr.raw)
	}
}
