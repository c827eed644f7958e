// Package treceval is a drop-in for NIST trec_eval version 10: it reads
// trec_eval's command line, qrels and run files, computes every measure of
// trec_eval's standard qrels/run formats with trec_eval's exact semantics
// (ranking, ties, relevance levels, -M, -J, -c, parameters), and prints the
// same bytes.
//
// A run is streamed: each query is ranked and scored as its lines are read,
// and only per-query values are kept, so memory stays small however large
// the run is.
package treceval

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sniff"
	"github.com/ragstat/ragstat/internal/trecfile"
)

func init() { sortRegistry() }

// gcPercent is the garbage collector's target while Main runs, and
// loadGCPercent while it reads the judgments.
const gcPercent, loadGCPercent = 40, 400

// exitError is a failure with trec_eval's exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func fail(code int, format string, args ...any) *exitError {
	return &exitError{code, fmt.Errorf(format, args...)}
}

// Main runs trec_eval with the given arguments (what follows the command
// name) and returns the exit status: 0 on success, and where trec_eval fails
// the status trec_eval exits with (1 usage, 2 input or parameters, 4 a query
// that cannot be evaluated, 7 nothing to evaluate). Results go to stdout,
// problems to stderr.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Most of the heap is the judgments and buffers, alive to the end; a
	// tighter collection target keeps the peak memory small at little cost.
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	out := bufio.NewWriterSize(stdout, 1<<16)
	err := run(args, stdin, out, stderr)
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fail(1, "writing results: %v", ferr)
	}
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "trec-eval: %v\n%s", err, usageText)
		return 1
	}
	fmt.Fprintf(stderr, "trec-eval: %v\n", err)
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return 2
}

const usageText = `usage: trec-eval [-h] [-q] [-c] [-n] [-J] [-l level] [-M max] [-N num] {-m measure[.params]} qrels_file run_file
  -h shows every option and the requested measures (-h -m all_trec for all of them)
`

// run does the work of Main.
func run(args []string, stdin io.Reader, out *bufio.Writer, stderr io.Writer) error {
	c, err := parseArgs(args)
	switch {
	case err != nil:
		return err
	case c.version:
		_, err := fmt.Fprintln(stderr, "trec-eval: compatible with trec_eval version 10.0")
		return err
	case c.help:
		return writeHelp(out, c)
	case len(c.files) != 2:
		return usageError{fmt.Sprintf("want 2 files (qrels, then run), got %d", len(c.files))}
	}
	if err := c.checkFormats(); err != nil {
		return err
	}
	if len(c.req.marked) == 0 {
		if err := c.req.mark("official"); err != nil {
			return err
		}
	}
	ins, nvals, err := c.req.instances()
	if err != nil {
		return &exitError{2, err}
	}
	e := &evaluation{cfg: c, ins: ins, nvals: nvals}
	if err := e.read(c.files[0], c.files[1], stdin); err != nil {
		return err
	}
	return e.report(out)
}

// checkFormats rejects the input formats this implementation does not read.
func (c *config) checkFormats() error {
	switch {
	case c.relFormat != "qrels":
		return fail(2, "judgments format '%s' (-R) is not supported; only qrels is", c.relFormat)
	case c.resFormat != "trec_results":
		return fail(2, "results format '%s' (-T) is not supported; only trec_results is", c.resFormat)
	case c.zscores != "":
		return fail(2, "-Z (z-scores) is not supported")
	}
	return nil
}

// evaluation holds the judgments, the requested measures and every query's
// values.
type evaluation struct {
	cfg     *config
	ins     []*instance
	nvals   int
	qrels   *qrels
	results []*queryResult // by index in qrels.queries
	runID   string
	runLine int
	mu      sync.Mutex
	pool    sync.Pool
}

// queryResult is what is kept of one evaluated query.
type queryResult struct {
	vals   []float64
	relstr string
	err    error
}

// read loads the judgments, then streams the run, scoring each judged
// query as it comes.
func (e *evaluation) read(qrelsPath, runPath string, stdin io.Reader) error {
	qf, err := input.Open(qrelsPath, stdin)
	if err != nil {
		return fail(2, "cannot read qrels file '%s': %v", qrelsPath, err)
	}
	defer qf.Close()
	if head, err := qf.Head(4096); err == nil && sniff.LooksLikeRun(head) {
		return fail(2, "qrels file '%s' looks like a run (qid Q0 docno rank score tag): did you swap the files? trec-eval takes the qrels first, then the run", qrelsPath)
	}
	r, err := qf.Open()
	if err != nil {
		return fail(2, "cannot read qrels file '%s': %v", qrelsPath, err)
	}
	defer r.Close()
	// While the judgments are read nearly all the heap is live: the
	// collector runs rarely then.
	gc := debug.SetGCPercent(loadGCPercent)
	e.qrels, err = readQrels(r, qrelsPath, e.cfg.debugQuery)
	debug.SetGCPercent(gc)
	if err != nil {
		return fail(2, "in qrels file '%s' (trec_eval's rules: 4 fields, no blank lines):\n%v", qrelsPath, err)
	}
	e.results = make([]*queryResult, len(e.qrels.queries))
	rf, err := input.Open(runPath, stdin)
	if err != nil {
		return fail(2, "cannot read run file '%s': %v", runPath, err)
	}
	defer rf.Close()
	err = trecfile.ReadRun(rf.Open, trecfile.Options{Name: runPath, Lenient: true, Redeliver: true}, func(q *trecfile.RunQuery) error {
		e.noteRunID(q)
		if i, ok := e.qrels.index[q.Query]; ok {
			e.results[i] = e.score(q.Docs, e.qrels.queries[i])
		}
		return nil
	})
	if err != nil {
		return fail(2, "in run file '%s' (trec_eval's rules: 6 fields or more per line):\n%v", runPath, err)
	}
	return nil
}

// noteRunID keeps the tag of the run's last line, which trec_eval reports
// as the run's name.
func (e *evaluation) noteRunID(q *trecfile.RunQuery) {
	last := q.Docs[len(q.Docs)-1].Line
	e.mu.Lock()
	defer e.mu.Unlock()
	if last > e.runLine {
		e.runLine, e.runID = last, strings.Clone(q.LastTag)
	}
}

// score ranks one query and computes every requested measure.
func (e *evaluation) score(docs []trecfile.RunDoc, j *judgments) *queryResult {
	sc, _ := e.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer e.pool.Put(sc)
	res := &queryResult{}
	rr, err := e.cfg.rank(docs, j, sc)
	if err != nil {
		err = fmt.Errorf("%s: %v", e.cfg.files[1], err)
	} else {
		err = e.judgmentsError(j)
	}
	if err != nil {
		res.err = err
		return res
	}
	q := &queryEval{s: &e.cfg.settings, j: j, rr: rr, vals: make([]float64, e.nvals), sc: sc}
	for _, in := range e.ins {
		if err := in.calc(q, in); err != nil {
			res.err = err
			return res
		}
	}
	res.vals, res.relstr = q.vals, q.relstr
	return res
}

// judgmentsError says why trec_eval cannot evaluate a query from its
// judgments, or returns nil.
func (e *evaluation) judgmentsError(j *judgments) error {
	switch {
	case j.dup != "":
		return fmt.Errorf("%s: query %q judges document %q twice; keep one judgment", e.cfg.files[0], j.qid, j.dup)
	case j.broken != "":
		return fmt.Errorf("%s: query %q: %s; trec_eval cannot evaluate it (remove the query or give it a grade >= 0)", e.cfg.files[0], j.qid, j.broken)
	}
	return nil
}

// scoreMissing evaluates a judged query absent from the run, as trec_eval's
// -c does: as a ranking of one unjudged document, with the counts that
// depend on it reset.
func (e *evaluation) scoreMissing(j *judgments) *queryResult {
	res := e.score([]trecfile.RunDoc{{Doc: bogusDocno, Score: 1}}, j)
	if res.err != nil {
		return res
	}
	for _, in := range e.ins {
		for k, name := range in.names {
			if name == "num_ret" || name == "utility" || name == "rbp_resid" || len(name) >= 3 && name[:3] == "unj" {
				res.vals[in.off+k] = 0
			}
		}
	}
	res.relstr = ""
	return res
}

// report prints the per-query rows (with -q) and the summary, stopping at
// the first judged query that cannot be evaluated, as trec_eval does.
func (e *evaluation) report(out *bufio.Writer) error {
	var done []*queryResult
	var qids []string
	var stop error
	for i, j := range e.qrels.queries {
		if e.cfg.debugQuery != "" && j.qid != e.cfg.debugQuery {
			continue
		}
		res := e.results[i]
		switch {
		case res == nil && !e.cfg.complete:
			stop = fail(4, "query '%s' is judged in %s but has no lines in %s; add -c to score it 0 (trec_eval 9 skipped it silently)", j.qid, e.cfg.files[0], e.cfg.files[1])
		case res == nil:
			res = e.scoreMissing(j)
		}
		if stop == nil && res.err != nil {
			stop = fail(4, "cannot calculate measures: %v", res.err)
		}
		if stop != nil {
			break
		}
		done = append(done, res)
		qids = append(qids, j.qid)
	}
	if e.cfg.perQuery {
		e.writeQueries(out, qids, done)
	}
	if stop != nil {
		return stop
	}
	if len(done) == 0 {
		return fail(7, "no queries with both results and relevance info")
	}
	if e.cfg.summary {
		var rows rowWriter
		e.writeSummary(&rows, done)
		out.Write(rows.buf)
	}
	return nil
}

// writeQueries prints the per-query rows in order. They are formatted on
// every core, a chunk of queries at a time, and written as each chunk is
// ready, through a fixed set of buffers: at most two chunks a core are
// formatted or waiting, each in a buffer reused once it is written.
func (e *evaluation) writeQueries(out *bufio.Writer, qids []string, done []*queryResult) {
	const size = 128 // queries a chunk
	chunks := (len(done) + size - 1) / size
	workers := runtime.GOMAXPROCS(0)
	window := min(2*workers, chunks)
	jobs := make(chan int, chunks)
	ready := make([]chan []byte, chunks)
	for c := range ready {
		ready[c] = make(chan []byte, 1)
	}
	free := make(chan []byte, window) // a buffer for every chunk in flight
	for range window {
		free <- nil
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range jobs {
				rows := rowWriter{buf: <-free}
				if rows.buf == nil { // sized for the usual rows: grown by append, a buffer leaves copies behind
					rows.buf = make([]byte, 0, size*(e.nvals+1)*32)
				}
				for k := c * size; k < min(len(done), (c+1)*size); k++ {
					e.writeQuery(&rows, qids[k], done[k])
				}
				ready[c] <- rows.buf
			}
		})
	}
	for c := range window {
		jobs <- c
	}
	for c := range chunks {
		buf := <-ready[c]
		out.Write(buf)
		free <- buf[:0]
		if c+window < chunks {
			jobs <- c + window
		}
	}
	close(jobs)
	wg.Wait()
}

// writeQuery prints one query's rows.
func (e *evaluation) writeQuery(out *rowWriter, qid string, res *queryResult) {
	for _, in := range e.ins {
		switch in.value {
		case meanValue:
			for k, name := range in.names {
				out.float(name, qid, res.vals[in.off+k])
			}
		case countValue, relCountValue:
			out.long(in.names[0], qid, res.vals[in.off])
		case stringValue:
			out.text(in.names[0], qid, "'", res.relstr, "'")
		}
	}
}

// writeSummary prints the rows for "all".
func (e *evaluation) writeSummary(out *rowWriter, done []*queryResult) {
	n := len(done)
	if e.cfg.complete {
		n = len(e.qrels.queries)
	}
	for _, in := range e.ins {
		for k, name := range in.names {
			sum := 0.0
			for _, res := range done {
				sum += res.vals[in.off+k]
			}
			switch in.value {
			case runIDValue:
				out.text("runid", "all", "", e.runID, "")
			case numQValue:
				out.long(name, "all", float64(n))
			case countValue:
				out.long(name, "all", sum)
			case relCountValue:
				if e.cfg.complete {
					sum = float64(e.qrels.positive())
				}
				out.long(name, "all", sum)
			case meanValue:
				out.float(name, "all", sum/float64(n))
			case geoMeanValue:
				if e.cfg.complete {
					sum += float64(n-len(done)) * math.Log(minGeoMean)
				}
				out.float(name, "all", math.Exp(sum/float64(n)))
			}
		}
	}
}

// positive counts the judgments with a grade above 0 over all queries.
func (q *qrels) positive() int {
	n := 0
	for _, j := range q.queries {
		for _, g := range j.grades {
			if g > 0 {
				n++
			}
		}
	}
	return n
}
