package auditcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/audit"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/golden"
)

func files() settings.Files {
	return settings.Files{Open: func(p string) (*input.File, error) { return input.Open(p, nil) }}
}

// flagsRequest audits testdata/flags: a set built so that every reason
// flags a known query (see the topics' texts and the runs).
func flagsRequest(format string, failOn ...string) Request {
	dir := filepath.Join("..", "audit", "testdata", "flags")
	r := Request{Eval: settings.Eval{MinGrade: 1, Judgments: filepath.Join(dir, "qrels.txt"), Metrics: []string{"nDCG@3", "RR@3"}},
		Topics: filepath.Join(dir, "topics.jsonl"), Corpus: filepath.Join(dir, "corpus.jsonl"), Options: audit.DefaultOptions(), FailOn: failOn}
	return r
}

func flagsSources() Sources {
	dir := filepath.Join("..", "audit", "testdata", "flags")
	return Sources{Files: files(), Systems: []string{"a=" + filepath.Join(dir, "a.run"), filepath.Join(dir, "b.jsonl")}}
}

func TestFlags(t *testing.T) {
	rep, reasons, err := flagsRequest("").Audit(flagsSources())
	if err != nil {
		t.Fatal(err)
	}
	if len(reasons) != 0 {
		t.Errorf("no rule given, the gate says %v", reasons)
	}
	want := map[string]string{
		"leak":         "leakage",
		"trivial":      "trivial, saturated",
		"floor":        "saturated",
		"scoped":       "k_too_large",
		"inf1":         "",
		"dup":          "duplicate",
		"inf2":         "",
		"near":         "k_too_large, duplicate",
		"gone":         "saturated, ungrounded",
		"nopos":        "no_positives",
		"unjudged":     "no_positives",
		"unanswerable": "",
		"multi":        "leakage, trivial, saturated, ungrounded",
	}
	if len(rep.Queries) != len(want) {
		t.Fatalf("%d queries audited, want %d", len(rep.Queries), len(want))
	}
	for _, q := range rep.Queries {
		if got := q.Reasons(); got != want[q.ID] {
			t.Errorf("topics.jsonl: query %s flagged %q, want %q", q.ID, got, want[q.ID])
		}
	}
	if rep.Summary.Informative != 3 {
		t.Errorf("%d informative, want 3", rep.Summary.Informative)
	}
	for _, f := range []string{"table", "json", "markdown"} {
		var buf bytes.Buffer
		if err := (audit.Output{Format: f}).Write(&buf, rep); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("..", "audit", "testdata", "flags."+f), buf.String())
	}
}

func TestGate(t *testing.T) {
	for _, c := range []struct {
		rules []string
		want  string
		err   string
	}{
		{[]string{"informative<4"}, "informative<4: 3 of 13 queries are informative", ""},
		{[]string{"informative<3"}, "", ""},
		{[]string{"leakage>0.1"}, "leakage>0.1: leakage flags 2 of 13 queries (0.1538)", ""},
		{[]string{"leakage>0.3", "no_positives>=0.15"}, "no_positives>=0.15: no_positives flags 2 of 13 queries (0.1538)", ""},
		{[]string{"leakage"}, "", "fail_on \"leakage\" is not NAME<VALUE"},
		{[]string{"leaks>0.3"}, "", "names neither informative nor a reason"},
		{[]string{"leakage>3"}, "", "give a value in [0, 1]"},
		{[]string{"informative<x"}, "", "needs a finite number after <"},
		{[]string{"informative<NaN"}, "", "needs a finite number after <"},
	} {
		_, reasons, err := flagsRequest("", c.rules...).Audit(flagsSources())
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: err %v, want %q", c.rules, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(reasons, "\n"); got != c.want {
			t.Errorf("%v: %q, want %q", c.rules, got, c.want)
		}
	}
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		edit func(*Request)
		want string
	}{
		{func(r *Request) { r.MaxOverlap = 0 }, "max_overlap 0 must lie in (0, 1]"},
		{func(r *Request) { r.Shingle = 0 }, "shingle 0 must be 1 or more words"},
		{func(r *Request) { r.Jaccard = 2 }, "jaccard 2 must lie in (0, 1]"},
		{func(r *Request) { r.Level = 1 }, "level 1 must lie strictly between 0 and 1"},
		{func(r *Request) { r.Topics = "" }, "topics is required"},
		{func(r *Request) { r.SliceBy = []string{"colour"} }, "slice_by"},
	} {
		r := flagsRequest("")
		c.edit(&r)
		_, _, err := r.Audit(flagsSources())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}

// TestValidity: a judged item out of the query's scopes or not in effect
// at its as_of date is no evidence, as stages and compare score traces,
// so an audit of the demo's pipelines agrees with their comparison. By
// hand: refund-window's grade-2 policy-2025#2 is stale at 2026-06-01 and
// v1 ranks it first, its valid policy#2 second (RR@10 0.5, as compare
// says of v1's reranked stage), so neither trivial nor saturated on RR@10
// (both systems hold every valid relevant item: R@10 at its maximum); the
// same for api-limits, whose limits-b#1 is out of tenant-a's scope. A
// query whose only relevant judgment is out of scope has no positives.
func TestValidity(t *testing.T) {
	dir := t.TempDir()
	if err := demo.Write(dir, false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "pipeline")
	r := Request{Eval: settings.Eval{MinGrade: 1, Judgments: filepath.Join(p, "judgments.jsonl")},
		Topics: filepath.Join(p, "topics.jsonl"), Corpus: filepath.Join(p, "corpus.jsonl"), Options: audit.DefaultOptions()}
	rep, _, err := r.Audit(Sources{Files: files(), Systems: []string{filepath.Join(p, "traces-v1.jsonl"), filepath.Join(p, "traces-v2.jsonl")}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"refund-window":    "leakage, saturated, k_too_large",
		"api-limits":       "leakage, saturated, k_too_large",
		"refund-clearance": "leakage, trivial, saturated, k_too_large, ungrounded",
		"crypto-refund":    "k_too_large",
	}
	for _, q := range rep.Queries {
		if got := q.Reasons(); got != want[q.ID] {
			t.Errorf("%s flagged %q, want %q", q.ID, got, want[q.ID])
		}
		for _, f := range q.Flags {
			if f.Reason == audit.Saturated && q.ID != "refund-clearance" && f.Detail != "all 2 systems score R@10 at its maximum 1.0000" {
				t.Errorf("%s: %s", q.ID, f.Detail)
			}
		}
	}
	// The only relevant judgment out of the query's scopes.
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	r = Request{Eval: settings.Eval{MinGrade: 1, Judgments: write("q.jsonl", `{"query":"q","item":"x","grade":2}`+"\n")},
		Topics:  write("t.jsonl", `{"id":"q","text":"what is x","scopes":["a"]}`+"\n"),
		Corpus:  write("c.jsonl", `{"id":"x","scope":"b","text":"x is a thing"}`+"\n"),
		Options: audit.DefaultOptions()}
	rep, _, err = r.Audit(Sources{Files: files()})
	if err != nil {
		t.Fatal(err)
	}
	q := rep.Queries[0]
	if got := q.Reasons(); got != "leakage, k_too_large, no_positives" {
		t.Errorf("flagged %q", got)
	}
	for _, f := range q.Flags {
		if f.Reason == audit.NoPositives && !strings.Contains(f.Detail, "its 1 relevant judgments are out of its scopes") ||
			f.Reason == audit.Leakage && !strings.Contains(f.Detail, "no relevant passage is evidence for it") {
			t.Errorf("%s: %s", f.Reason, f.Detail)
		}
	}
}
