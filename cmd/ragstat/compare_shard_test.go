package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// compareShardArgs compares DL-HARD's bm25 with two runs and a saved eval
// result, sliced by fold and gated by a rule that fails.
func compareShardArgs(t *testing.T) []string {
	t.Helper()
	dir := dlHard(t)
	topics := dlHardTopics(t, dir)
	saved := filepath.Join(t.TempDir(), "t5.json")
	eval := []string{"eval", "-j", filepath.Join(dir, "dl_hard-passage.qrels"), "--unjudged", "nonrelevant",
		"-m", "nDCG@10", "-m", "RR@10", "-m", "R@100", "--gain", "linear", "-f", "json", dlHardRun(dir, "bm25_t5_zs")}
	out, errs, code := ragstat(t, "", eval...)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	if err := os.WriteFile(saved, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return dlHardArgs(dir, "--topics", topics, "--top", "3", "--fail-on", "nDCG@10 < 0.05", "--fail-on", "RR@10[tag:fold:2] < 0",
		dlHardRun(dir, "bm25"), dlHardRun(dir, "bm25_rm3"), dlHardRun(dir, "bm25_rm3_bert_zs"), saved)
}

// TestCompareShardsMergeToOneRun splits a comparison of real runs into 4
// and 7 shards by query and checks that the merged parts print exactly
// what one comparison prints, in every format, with the same gate verdict
// and exit code.
func TestCompareShardsMergeToOneRun(t *testing.T) {
	checkShardsMerge(t, compareShardArgs(t), nil, compareFormats, []int{4, 7, 60}, exitGate) // 60 shards of 50 queries: some hold none
}

// compareFormats are the formats a merged comparison is checked in.
var compareFormats = []string{"table", "json", "csv", "markdown", "html"}

// checkShardsMerge runs the command args once in each format, then in
// each count of shards, merged with mergeFlags, and checks that the merged
// parts print the same bytes, stderr and exit code (want).
func checkShardsMerge(t *testing.T, args, mergeFlags, formats []string, counts []int, want int) {
	t.Helper()
	type printed struct {
		out, errs string
		code      int
	}
	single := map[string]printed{}
	for _, f := range formats {
		out, errs, code := ragstat(t, "", append(args, "-f", f)...)
		if code != want {
			t.Fatalf("single run, %s: exit %d, want %d: %s", f, code, want, errs)
		}
		single[f] = printed{out, errs, code}
	}
	tmp := t.TempDir()
	for _, n := range counts {
		parts := writeShards(t, tmp, "part", args, n)
		for _, f := range formats {
			out, errs, code := ragstat(t, "", slices.Concat([]string{"merge", "-f", f}, mergeFlags, parts)...)
			want := single[f]
			if code != want.code || errs != want.errs {
				t.Errorf("merge of %d, %s: exit %d, %q; one run: exit %d, %q", n, f, code, errs, want.code, want.errs)
			}
			if out != want.out {
				t.Errorf("merge of %d shards, format %s, differs from one run:\n%s", n, f, firstDiff(out, want.out))
			}
		}
	}
}

// TestCompareMergeRefuses checks that compare parts that overlap, leave a
// gap, come from different splits, disagree or mix kinds are refused, by
// name.
func TestCompareMergeRefuses(t *testing.T) {
	args := compareShardArgs(t)
	dir := dlHard(t)
	t.Chdir(t.TempDir())
	write := func(name string, a ...string) string {
		t.Helper()
		out, errs, code := ragstat(t, "", a...)
		if code != 0 && code != exitGate {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		if err := os.WriteFile(name, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	part := func(name, shard string, extra ...string) string {
		return write(name, append(append(append([]string{}, args...), "-f", "json", "--shard", shard), extra...)...)
	}
	a, b, c := part("a.json", "0/3"), part("b.json", "1/3"), part("c.json", "2/3")
	seed := part("seed.json", "2/3", "--seed", "2")
	rule := part("rule.json", "2/3", "--fail-on", "R@100 < 0")
	gain := part("gain.json", "2/3", "--gain", "exp", "--allow-mismatch", "policy.gain")
	sliced := part("sliced.json", "2/3", "--slice-by", "answerable")
	half := part("half.json", "1/2")
	whole := write("whole.json", append(append([]string{}, args...), "-f", "json")...)
	evalPart := write("eval.json", "eval", "-j", filepath.Join(dir, "dl_hard-passage.qrels"), "--unjudged", "nonrelevant",
		"-f", "json", "--shard", "2/3", dlHardRun(dir, "bm25"))
	for _, tc := range []struct {
		parts []string
		want  string
	}{
		{[]string{a, b, b, c}, "b.json and b.json are both shard 1/3 (overlap)"},
		{[]string{a, c}, "shard(s) 1/3 missing (gap)"},
		{[]string{a, b, half}, "half.json is shard 1/2 but a.json is shard 0/3"},
		{[]string{a, b, seed}, "a.json and seed.json disagree on the statistics' settings"},
		{[]string{a, b, rule}, "a.json and rule.json disagree on the gate"},
		{[]string{a, b, gain}, "a.json and gain.json disagree on policy.gain"},
		{[]string{a, b, sliced}, "a.json and sliced.json disagree on the slices"},
		{[]string{a, b, whole}, "whole.json is not a partial result"},
		{[]string{a, b, evalPart}, "a.json is a compare result but eval.json is an eval result"},
		{[]string{a, b, editCompare(t, c, "edited.json", func(side map[string]any) {
			side["values"].([]any)[0].([]any)[0] = 1e308
		})}, "edited.json: its per-query values or queries do not match the digest"},
		{[]string{a, b, editCompare(t, c, "twice.json", func(side map[string]any) {
			side["queries"] = append(side["queries"].([]any), side["queries"].([]any)[0])
		})}, "twice.json, side"},
	} {
		_, errs, code := ragstat(t, "", append([]string{"merge"}, tc.parts...)...)
		if code != exitInput || !strings.Contains(errs, tc.want) {
			t.Errorf("merge %v: exit %d, %q; want exit 2 and %q", tc.parts, code, errs, tc.want)
		}
	}
	if _, errs, code := ragstat(t, "", append(args, "--shard", "0/3")...); code != exitInput || !strings.Contains(errs, "give --format json") {
		t.Errorf("--shard without --format json: exit %d, %q", code, errs)
	}
}

// TestCompareTracesShardsMergeToOneRun compares two real pipelines traced
// from DL-HARD (the fixture of TestStagesShardsMergeToOneRun) in 4 and 7
// shards and checks that the merged parts print exactly what one
// comparison prints, frontier and losses included, in every format.
func TestCompareTracesShardsMergeToOneRun(t *testing.T) {
	qrels, topics, traces := dlHardPipelines(t, t.TempDir())
	args := append([]string{"compare", "-j", qrels, "--topics", topics, "--unjudged", "nonrelevant", "--seed", "3",
		"-k", "candidates=100", "-k", "reranked=10", "--fail-on", "reranked/nDCG@10 < 0.5"}, traces...)
	checkShardsMerge(t, args, nil, compareFormats, []int{4, 7}, exitGate)
	// A traced side's per-query value edited after the part was written.
	dir := t.TempDir()
	parts := writeShards(t, dir, "part", args, 2)
	doc := readDoc(t, parts[0])
	traced := doc["partial"].(map[string]any)["sides"].([]any)[0].(map[string]any)["values"].([]any)[0].([]any)
	if len(traced) == 0 {
		t.Fatal("no per-query value in the traced side")
	}
	traced[0] = 1e308
	edited := filepath.Join(dir, "edited.json")
	writeDoc(t, edited, doc)
	_, errs, code := ragstat(t, "", "merge", edited, parts[1])
	if code != exitInput || !strings.Contains(errs, "its per-query values or queries do not match the digest its manifest records") {
		t.Errorf("merge of an edited traced side: exit %d, %s", code, errs)
	}
}

// editFirstValue sets the first per-query metric value found in v (a
// "queries" list of objects with "metrics") to 1e308.
func editFirstValue(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if qs, ok := v["queries"].([]any); ok && len(qs) > 0 {
			if q, ok := qs[0].(map[string]any); ok {
				if ms, ok := q["metrics"].(map[string]any); ok {
					for _, name := range slices.Sorted(maps.Keys(ms)) {
						ms[name] = 1e308
						return true
					}
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if editFirstValue(v[k]) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if editFirstValue(x) {
				return true
			}
		}
	}
	return false
}

// editCompare writes to name the partial comparison at path with its first
// side edited.
func editCompare(t *testing.T, path, name string, edit func(side map[string]any)) string {
	t.Helper()
	doc := readDoc(t, path)
	edit(doc["partial"].(map[string]any)["sides"].([]any)[0].(map[string]any))
	writeDoc(t, name, doc)
	return name
}
