package audit

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/topics"
)

// generated builds a test set the way the synthetic sets users report are
// built: each of queries queries is a sentence copied from its own passage
// (of passages, three sentences each, their words drawn from 50,000 with
// Zipf's law, s = 1.1, as in text), judged relevant, and two systems both
// rank that passage first, then nine others at random.
func generated(tb testing.TB, queries, passages int) (Set, []System) {
	tb.Helper()
	r := rand.New(rand.NewPCG(28, uint64(queries)))
	vocab := make([]string, 50000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dq", i)
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	word := func() string { return vocab[zipf.Uint64()] }
	sentence := func() string {
		ws := make([]string, 6+r.IntN(8))
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	var cb, jb strings.Builder
	firsts := make([]string, passages)
	for i := range passages {
		s := []string{sentence(), sentence(), sentence()}
		firsts[i] = s[r.IntN(3)]
		line, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("p%d", i), "text": strings.Join(s, ". ") + "."})
		cb.Write(line)
		cb.WriteByte('\n')
	}
	ts := make([]*topics.Topic, queries)
	lists := [2]map[string][]string{{}, {}}
	for i := range queries {
		id, p := fmt.Sprintf("q%d", i), fmt.Sprintf("p%d", i%passages)
		ts[i] = &topics.Topic{ID: id, Text: firsts[i%passages], Answerable: true, Tags: []string{fmt.Sprintf("t%d", i%4)}}
		fmt.Fprintf(&jb, "%s 0 %s 1\n", id, p)
		for s := range lists {
			l := []string{p}
			for range 9 {
				l = append(l, fmt.Sprintf("p%d", r.IntN(passages)))
			}
			lists[s][id] = l
		}
	}
	cs, err := corpus.Read(input.FromBytes("corpus.jsonl", []byte(cb.String())))
	if err != nil {
		tb.Fatal(err)
	}
	qrels, err := judgments.Read(input.FromBytes("qrels.txt", []byte(jb.String())), judgments.Options{Scale: judgments.DefaultScale})
	if err != nil {
		tb.Fatal(err)
	}
	p := eval.DefaultPolicy()
	p.Unjudged = eval.UnjudgedNonrelevant
	ms, err := metric.ParseAll([]string{"nDCG@10", "RR@10", "R@10"})
	if err != nil {
		tb.Fatal(err)
	}
	ev, err := eval.New(qrels, p, ms, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return Set{Evaluator: ev, Topics: topics.NewSet("topics.jsonl", ts), Corpus: cs},
		[]System{{Name: "dense", Lists: lists[0]}, {Name: "hybrid", Lists: lists[1]}}
}

// TestGeneratedSetIsFlagged: on a set whose queries copy a sentence of
// their passage and whose systems all answer at rank 1, at least 95% of
// the queries are flagged, each for leakage, and the summary says so.
func TestGeneratedSetIsFlagged(t *testing.T) {
	set, syss := generated(t, 2000, 4000)
	rep, err := Run(set, syss, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	flagged, leaked := 0, 0
	for _, q := range rep.Queries {
		if !q.Informative() {
			flagged++
		}
		if q.Has(Leakage) {
			leaked++
		}
	}
	if share := float64(flagged) / float64(len(rep.Queries)); share < 0.95 {
		t.Errorf("%d of %d queries flagged (%.4f), want at least 0.95", flagged, len(rep.Queries), share)
	}
	if leaked < flagged*95/100 {
		t.Errorf("%d of %d flagged queries leak", leaked, flagged)
	}
	if got := len(rep.Queries) - rep.Summary.Informative; got != flagged {
		t.Errorf("summary: %d flagged, the queries say %d", got, flagged)
	}
	reasons, err := gate(rep, "informative<100", "leakage>0.3")
	if err != nil || len(reasons) != 2 {
		t.Errorf("the gate on a leaking set: %v %v", reasons, err)
	}
	t.Logf("%d of %d flagged; %s", flagged, len(rep.Queries), counts(rep))
}

func gate(rep *Report, rules ...string) ([]string, error) {
	var rs []Rule
	for _, s := range rules {
		r, err := ParseRule(s)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rep.Gate(rs), nil
}

func counts(rep *Report) string {
	var out []string
	for _, c := range rep.Summary.Reasons {
		out = append(out, fmt.Sprintf("%s %d", c.Reason, c.Queries))
	}
	return strings.Join(out, ", ")
}

// BenchmarkAudit audits 100,000 queries over a 200,000-passage corpus
// against two systems (the files read and parsed before the clock
// starts). Beside the wall time it reports the CPU seconds the process
// spent per audit (cpu-s/op): on a machine shared with other work the
// wall time says little, and two idle cores need at least half of them.
func BenchmarkAudit(b *testing.B) {
	set, syss := generated(b, 100_000, 200_000)
	runtime.GC()
	start := cpuSeconds(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(set, syss, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds(b)-start)/float64(b.N), "cpu-s/op")
}

// cpuSeconds is the user and system time the process has used.
func cpuSeconds(b *testing.B) float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}
