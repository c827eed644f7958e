package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStagesNuggetAssignments: --nugget-assignments adds nuggetizer's four
// scores of the answers to the answers' lines (the hand-worked means of
// topics/testdata's two answers); a nugget file given instead is exit 2
// naming the line.
func TestStagesNuggetAssignments(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"j.jsonl": `{"query":"2024-1","item":"a","grade":2}
{"query":"2024-2","item":"b","grade":1}
`,
		"t.jsonl": `{"id":"2024-1"}
{"id":"2024-2"}
`,
		"tr.jsonl": `{"query":"2024-1","system":"s","stages":[{"name":"context","items":[{"id":"a"}]}],"answer":{"text":"x","abstained":false}}
{"query":"2024-2","system":"s","stages":[{"name":"context","items":[{"id":"b"}]}],"answer":{"text":"y","abstained":false}}
`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := func(assignments string) []string {
		return []string{"stages", "-j", filepath.Join(dir, "j.jsonl"), "--topics", filepath.Join(dir, "t.jsonl"),
			"--nugget-assignments", assignments, filepath.Join(dir, "tr.jsonl")}
	}
	out, errs, code := ragstat(t, "", args("../../topics/testdata/assignments.jsonl")...)
	want := "  nugget scores over 2 answers: strict vital 0.6667, vital 0.7500, strict all 0.4500, all 0.6125\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, stderr %s, stdout:\n%s", code, errs, out)
	}
	_, errs, code = ragstat(t, "", args("../../topics/testdata/nuggets.jsonl")...)
	if code != 2 || !strings.Contains(errs, `nuggets.jsonl:1: query "2024-1": nugget 1 has no assignment: this is a nugget file`) {
		t.Errorf("nugget file: exit %d, stderr %s", code, errs)
	}
}

// nuggetizerFile is a file of testdata/nuggetizer: TREC RAG 2024's files
// as nuggetizer writes them (nuggets, and assignments of the answers and
// of retrieved passages), with qrels, a corpus and one system's traces.
func nuggetizerFile(name string) string { return filepath.Join(testdataDir, "nuggetizer", name) }

// TestStagesNuggetizer runs stages on nuggetizer's files as they come:
// the nugget file as --topics, its facts supported by the passages the
// retrieval lines of the assignments assign "support", and the answer
// lines' four scores beside fact coverage. Worked by hand:
//
// Support (partial support gives none): rag-1 fact 1 {d1}, 2 {d2}, 3 {d2},
// 4 none; rag-2 fact 1 {e1}, 2 none (e2 only partly), 3 {e3}.
//
// Stages: rag-1 candidates d3 d1 x1 d2, reranked d1 d3, context d1;
// rag-2 candidates e1 e2 e3, reranked e3 e1, context e3.
//
//	facts supported   rag-1   rag-2   mean
//	candidates        3/4     2/3     (9+8)/24 = 17/24 = 0.7083
//	reranked          1/4     2/3     (3+8)/24 = 11/24 = 0.4583
//	context           1/4     1/3     (3+4)/24 =  7/24 = 0.2917
//
// R (relevant: d1, d2; e1, e3): candidates 1, 1; reranked 1/2, 1; context
// 1/2, 1/2: means 1, 0.75, 0.5. Facts cited: d1 cites rag-1's fact 1 (1/4),
// e3 rag-2's fact 3 (1/3): 7/24 = 0.2917. Where facts stopped: rag-1 1
// delivered, 2 and 3 cut between candidates and reranked, 4 (no support)
// not retrieved; rag-2 1 dropped in packing, 2 not retrieved, 3 delivered.
//
// Answers (s support, p partial, n none; vital first):
//
//	rag-1: s p | p n   strict vital 1/2, vital 1.5/2 = 0.75, strict all 1/4, all 2/4
//	rag-2: p   | s n   strict vital 0,   vital 0.5,          strict all 1/3, all 1.5/3
//	means:             0.25, 0.625, (1/4+1/3)/2 = 7/24 = 0.2917, 0.5
func TestStagesNuggetizer(t *testing.T) {
	args := func(dir string, more ...string) []string {
		file := func(name string) string {
			if dir == "" {
				return nuggetizerFile(name)
			}
			return filepath.Join(dir, name)
		}
		return append([]string{"stages", "-m", "R", "-j", file("qrels.txt"), "--topics", file("nuggets.jsonl"),
			"--nugget-assignments", file("assignments.jsonl"), "--corpus", file("corpus.jsonl"), file("traces.jsonl")}, more...)
	}
	means := []string{
		"candidates all MEAN  1.0000 0.7083 3.5\n",
		"reranked   all MEAN  0.7500 0.4583 2.0\n",
		"context    all MEAN  0.5000 0.2917 1.0\n",
		"  nugget scores over 2 answers: strict vital 0.2500, vital 0.6250, strict all 0.2917, all 0.5000\n",
	}
	hasAll := func(what, out string, lines ...string) {
		t.Helper()
		for _, l := range lines {
			if !strings.Contains(out, l) {
				t.Errorf("%s: no %q in\n%s", what, l, out)
			}
		}
	}
	// The table without per-query rows reads the topics through the spill
	// file (bounded memory); --per-query reads them into memory.
	out, errs, code := ragstat(t, "", args("")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "nuggetizer.stages.golden", out)
	hasAll("spilled", out, append(means, "  citations: 2, supported 2 (1.0000), facts cited 0.2917\n",
		"  - query rag-1: fact 4: not retrieved; last reached: -\n", "  - query rag-2: fact 1: dropped in packing; last reached: reranked\n")...)
	out, errs, code = ragstat(t, "", args("", "--per-query")...)
	if code != 0 {
		t.Fatalf("--per-query: exit %d: %s", code, errs)
	}
	hasAll("in memory", out, append(means, "candidates all rag-1 1.0000 3/4    4\n", "candidates all rag-2 1.0000 2/3    3\n",
		"reranked   all rag-1 0.5000 1/4    2\n", "reranked   all rag-2 1.0000 2/3    2\n",
		"context    all rag-1 0.5000 1/4    1\n", "context    all rag-2 0.5000 1/3    1\n")...)
	// In JSON the assignments are an input of their own.
	out, errs, code = ragstat(t, "", args("", "-f", "json")...)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	hasAll("json", out, `"role": "nugget_assignments"`, `"role": "corpus"`, `"strict_vital": 0.25,`, `"vital": 0.625,`)
	// Each shard keeps its queries' support; merged, the same means.
	dir := t.TempDir()
	var parts []string
	for i := range 2 {
		out, errs, code := ragstat(t, "", args("", "-f", "json", "--shard", fmt.Sprintf("%d/2", i))...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		parts = append(parts, filepath.Join(dir, fmt.Sprintf("part%d.json", i)))
		if err := os.WriteFile(parts[i], []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code = ragstat(t, "", append([]string{"merge"}, parts...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	hasAll("merged", out, means...)
}

// TestStagesNuggetizerErrors: assignments that do not fit the nugget
// file, and a nugget file nuggetizer could not score, are exit 2 naming
// the file and line, in memory and through the spill file alike.
func TestStagesNuggetizerErrors(t *testing.T) {
	for _, tt := range []struct {
		name, file, from, to, want string
	}{
		{"a nugget the file lacks", "assignments.jsonl", `"qid": "rag-1", "candidate_text": "Gas boilers burn fuel.", "docid": "d3", "nuggets": [{"text": "A heat pump`, `"qid": "rag-1", "candidate_text": "Gas boilers burn fuel.", "docid": "d3", "nuggets": [{"text": "A gas pump`,
			`assignments.jsonl:5: query "rag-1", item "d3": nugget "A gas pump moves heat rather than burning fuel" is none of the query's facts (`},
		{"a query the file lacks", "assignments.jsonl", `"qid": "rag-2", "candidate_text": "Lord`, `"qid": "rag-3", "candidate_text": "Lord`,
			`assignments.jsonl:7: query "rag-3", item "e2": no such query in `},
		{"another importance", "assignments.jsonl", `"docid": "e3", "nuggets": [{"text": "Air molecules scatter short wavelengths more", "importance": "vital"`, `"docid": "e3", "nuggets": [{"text": "Air molecules scatter short wavelengths more", "importance": "okay"`,
			`assignments.jsonl:8: query "rag-2", item "e3": nugget "Air molecules scatter short wavelengths more" is okay here and vital in the topics`},
		{"a failed nugget", "nuggets.jsonl", `"This is Rayleigh scattering", "importance": "okay"`, `"This is Rayleigh scattering", "importance": "failed"`,
			`nuggets.jsonl:2: query "rag-2": nugget 2: importance "failed": nuggetizer could not score it`},
		{"assignments as topics", "nuggets.jsonl", `{"query": "how does a heat pump heat a house", "qid": "rag-1", "nuggets": [{"text": "A heat pump moves heat rather than burning fuel", "importance": "vital"}`,
			`{"query": "how does a heat pump heat a house", "qid": "rag-1", "nuggets": [{"text": "A heat pump moves heat rather than burning fuel", "importance": "vital", "assignment": "support"}`,
			`nuggets.jsonl:1: query "rag-1": nugget 1 has an assignment: this is an assignment file, not a nugget file`},
	} {
		dir := t.TempDir()
		for _, name := range []string{"qrels.txt", "nuggets.jsonl", "assignments.jsonl", "corpus.jsonl", "traces.jsonl"} {
			data, err := os.ReadFile(nuggetizerFile(name))
			if err != nil {
				t.Fatal(err)
			}
			if name == tt.file {
				if !strings.Contains(string(data), tt.from) {
					t.Fatalf("%s: %s lacks %q", tt.name, name, tt.from)
				}
				data = []byte(strings.Replace(string(data), tt.from, tt.to, 1))
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, format := range []string{"table", "json"} {
			_, errs, code := ragstat(t, "", "stages", "-f", format, "-j", filepath.Join(dir, "qrels.txt"), "--topics", filepath.Join(dir, "nuggets.jsonl"),
				"--nugget-assignments", filepath.Join(dir, "assignments.jsonl"), filepath.Join(dir, "traces.jsonl"))
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("%s (%s): exit %d, stderr %s", tt.name, format, code, errs)
			}
		}
	}
}

// TestNuggetizerSupport: a nugget file's nuggets name no passage, so
// stages and compare over traces refuse it without the assignments of
// retrieved passages (its fact coverage would read 0 by construction);
// with them, compare reads each stage's fact coverage as stages does:
// a second system whose reranker keeps d2 and d1 covers rag-1's facts 1,
// 2 and 3 there, so reranked/facts goes from 11/24 to 17/24 (+0.25).
func TestNuggetizerSupport(t *testing.T) {
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.jsonl")
	data, err := os.ReadFile(nuggetizerFile("assignments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(answers, []byte(strings.Join(strings.SplitAfter(string(data), "\n")[:2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	traces, err := os.ReadFile(nuggetizerFile("traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	other := strings.ReplaceAll(string(traces), `"system":"pump"`, `"system":"pump2"`)
	other = strings.Replace(other, `{"name":"reranked","items":[{"id":"d1","score":0.9},{"id":"d3","score":0.4}]}`, `{"name":"reranked","items":[{"id":"d2","score":0.9},{"id":"d1","score":0.4}]}`, 1)
	if err := os.WriteFile(filepath.Join(dir, "traces2.jsonl"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	stages := []string{"stages", "-j", nuggetizerFile("qrels.txt"), "--topics", nuggetizerFile("nuggets.jsonl"), nuggetizerFile("traces.jsonl")}
	compare := []string{"compare", "-j", nuggetizerFile("qrels.txt"), "--topics", nuggetizerFile("nuggets.jsonl"), nuggetizerFile("traces.jsonl"), filepath.Join(dir, "traces2.jsonl")}
	const refused = `nuggets.jsonl is nuggetizer's nugget file, whose nuggets name no passage: give --nugget-assignments the assignments of retrieved passages`
	for _, args := range [][]string{stages, append(stages, "--nugget-assignments", answers), append(stages, "-f", "json"), compare} {
		if _, errs, code := ragstat(t, "", args...); code != 2 || !strings.Contains(errs, refused) {
			t.Errorf("%v: exit %d, stderr %s", args, code, errs)
		}
	}
	out, errs, code := ragstat(t, "", append(compare, "--nugget-assignments", nuggetizerFile("assignments.jsonl"))...)
	if code != 0 || !strings.Contains(out, "pump2      reranked/facts      0.4583  0.7083  +0.2500") || !strings.Contains(out, "pump2      context/facts       0.2917  0.2917  +0.0000") {
		t.Errorf("compare: exit %d, stderr %s, stdout:\n%s", code, errs, out)
	}
}
