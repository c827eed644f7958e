package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFirstContactOutputs holds what a new user meets on the example files: each
// case a command line, its exit status and what its output must (and must
// not) say.
func TestFirstContactOutputs(t *testing.T) {
	t.Chdir(exampleDir(t))
	pipe := func(args ...string) []string {
		return append([]string{"-j", "pipeline/judgments.jsonl", "--topics", "pipeline/topics.jsonl"}, args...)
	}
	tests := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		has, not []string // in stdout and stderr together
	}{
		{name: "trec_eval parameters in one -m", args: []string{"eval", "-j", "qrels.jsonl", "-m", "P.5,10", "-k", "3", "A.jsonl"},
			has: []string{"P_5", "P_10"}},
		{name: "intervene --min-grade 0", args: append([]string{"intervene", "--endpoint", "http://127.0.0.1:1/v1", "--min-grade", "0"}, pipe("pipeline/traces-v1.jsonl")...),
			code: exitInput, has: []string{"--min-grade 0 must be a positive grade on the scale 0..3"}},
		{name: "intervene --min-grade 9", args: append([]string{"intervene", "--endpoint", "http://127.0.0.1:1/v1", "--min-grade", "9"}, pipe("pipeline/traces-v1.jsonl")...),
			code: exitInput, has: []string{"--min-grade 9 must be a positive grade on the scale 0..3"}},
		{name: "standard input twice", stdin: "{\"query\":\"q\",\"item\":\"d\",\"grade\":1}\n", args: []string{"eval", "-j", "-", "-"},
			code: exitInput, has: []string{"standard input can be read once"}, not: []string{"file is empty", "swap"}},
		{name: "a directory", args: []string{"eval", "-j", "qrels.jsonl", "pipeline"},
			code: exitInput, has: []string{"pipeline: is a directory, not a file"}, not: []string{"read pipeline"}},
		{name: "traces given to eval", args: []string{"eval", "-j", "pipeline/judgments.jsonl", "pipeline/traces-v1.jsonl"},
			code: exitInput, has: []string{"holds traces (jsonl); runs expected", "ragstat stages evaluates traces"}},
		{name: "a metric's typo", args: []string{"eval", "-j", "qrels.jsonl", "-m", "nDGC@3", "A.jsonl"},
			code: exitInput, has: []string{`did you mean "nDCG@3"?`}},
		{name: "help without jargon", args: []string{"--help"}, not: []string{"source document"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := ragstat(t, tt.stdin, tt.args...)
			all := out + errs
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, all)
			}
			for _, s := range tt.has {
				if !strings.Contains(all, s) {
					t.Errorf("output lacks %q:\n%s", s, all)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(all, s) {
					t.Errorf("output holds %q:\n%s", s, all)
				}
			}
		})
	}
}

// TestStagesUnrecorded: what the traces do not record is said so, never
// printed as a number: no budget, no abstention flag, topics without
// facts (rates over no query are "-").
func TestStagesUnrecorded(t *testing.T) {
	dir := exampleDir(t)
	t.Chdir(filepath.Join(dir, "pipeline"))
	strip := func(name string, res ...*regexp.Regexp) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range res {
			data = re.ReplaceAll(data, nil)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	strip("traces-v2.jsonl", regexp.MustCompile(`"budget_tokens": \d+, `), regexp.MustCompile(`, "abstained": (true|false)`))
	strip("topics.jsonl", regexp.MustCompile(`, "facts": \[[^\n]*?\]\}\]`))
	out, errs, code := ragstat(t, "", "stages", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl",
		"--tokenizer", "o200k_base", "traces-v2.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "stages.unrecorded.golden", out)
	for _, bad := range []string{"every context fits its budget", "rate 0.0000", "facts cited 0.0000"} {
		if strings.Contains(out, bad) {
			t.Errorf("output says %q", bad)
		}
	}
}

// TestStagesUnjudgedTotals: items without a judgment are named once a
// trace, not once a stage, with eval's totals line; ids that are content
// hashes point to --item-id.
func TestStagesUnjudgedTotals(t *testing.T) {
	dir := exampleDir(t)
	t.Chdir(filepath.Join(dir, "pipeline"))
	for _, name := range []string{"traces-v1.jsonl", "traces-v2.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.ReplaceAll(string(data), `"faq#7"`, `"sha256:0123456789abcdef"`))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errs, code := ragstat(t, "", "stages", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl",
		"--unknown-metadata", "allow", "traces-v1.jsonl", "traces-v2.jsonl")
	if code != exitInput {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "stages.unjudged.golden", errs)
	for _, want := range []string{"in all: 4 returned items in 2 queries have no judgment", "--item-id"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
}

// TestRepeatedJudgments: several -j files are merged on every command that
// evaluates (eval, stages, compare, intervene's reading), a pair graded
// differently in two files is an error naming both, and a command that
// reads one file refuses a second instead of keeping the last.
func TestRepeatedJudgments(t *testing.T) {
	t.Chdir(exampleDir(t))
	halves := func(name, first, second string) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
		os.WriteFile(first, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644)
		os.WriteFile(second, []byte(strings.Join(lines[len(lines)/2:], "")+"\n"), 0o644)
	}
	halves("qrels.jsonl", "q1.jsonl", "q2.jsonl")
	halves("pipeline/judgments.jsonl", "j1.jsonl", "j2.jsonl")
	os.WriteFile("conflict.jsonl", []byte("{\"query\":\"refund\",\"item\":\"policy\",\"grade\":1}\n"), 0o644)

	whole, _, _ := ragstat(t, "", "eval", "-j", "qrels.jsonl", "-k", "3", "A.jsonl", "B.jsonl")
	merged, errs, code := ragstat(t, "", "eval", "-j", "q1.jsonl", "-j", "q2.jsonl", "-k", "3", "A.jsonl", "B.jsonl")
	if code != 0 || merged != whole {
		t.Errorf("eval over two halves: exit %d, %s\n%s\nwant\n%s", code, errs, merged, whole)
	}
	_, errs, code = ragstat(t, "", "eval", "-j", "qrels.jsonl", "-j", "conflict.jsonl", "A.jsonl")
	if want := `conflict.jsonl:1: query "refund", item "policy": graded 1 here and 3 in qrels.jsonl line 1`; code != exitInput || !strings.Contains(errs, want) {
		t.Errorf("conflict: exit %d: %s", code, errs)
	}
	stagesArgs := []string{"--topics", "pipeline/topics.jsonl", "--corpus", "pipeline/corpus.jsonl", "pipeline/traces-v1.jsonl", "pipeline/traces-v2.jsonl"}
	whole, _, _ = ragstat(t, "", append([]string{"stages", "-j", "pipeline/judgments.jsonl"}, stagesArgs...)...)
	merged, errs, code = ragstat(t, "", append([]string{"stages", "-j", "j1.jsonl", "-j", "j2.jsonl"}, stagesArgs...)...)
	if code != 0 || merged != whole {
		t.Errorf("stages over two halves: exit %d, %s\n%s", code, errs, merged)
	}
	_, errs, code = ragstat(t, "", "compare", "-j", "q1.jsonl", "-j", "q2.jsonl", "-k", "3", "A.jsonl", "B.jsonl")
	if code != 0 {
		t.Errorf("compare over two halves: exit %d, %s", code, errs)
	}
	_, errs, code = ragstat(t, "", "pool", "-j", "q1.jsonl", "-j", "q2.jsonl", "--out", "queue.jsonl", "A.jsonl")
	if code != exitInput || !strings.Contains(errs, "given twice (q1.jsonl, q2.jsonl): this command reads one file") {
		t.Errorf("pool -j twice: exit %d: %s", code, errs)
	}
}

// TestStagesHTML: stages writes its HTML report at once, as compare does,
// the same page ragstat report makes of its JSON.
func TestStagesHTML(t *testing.T) {
	t.Chdir(filepath.Join(exampleDir(t), "pipeline"))
	args := []string{"stages", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl", "traces-v1.jsonl", "traces-v2.jsonl"}
	page, errs, code := ragstat(t, "", append(args, "-f", "html")...)
	if code != 0 || !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, "ragstat stages: 2 system(s)") {
		t.Fatalf("stages -f html: exit %d, %s\n%.300s", code, errs, page)
	}
	doc, _, _ := ragstat(t, "", append(args, "-f", "json")...)
	os.WriteFile("stages.json", []byte(doc), 0o644)
	saved, errs, code := ragstat(t, "", "report", "stages.json")
	if code != 0 || saved != page {
		t.Errorf("ragstat report of the JSON differs from stages -f html (exit %d, %s)", code, errs)
	}
}
