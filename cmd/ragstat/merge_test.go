package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestShardsMergeToOneRun splits real runs into 4 and 7 shards by query and
// checks that the merged parts print exactly what one run prints, notes on
// stderr included, in every format.
func TestShardsMergeToOneRun(t *testing.T) {
	dir := sharedtest.Dir(t, "data/dl-hard-passage")
	args := []string{"eval", "-j", filepath.Join(dir, "dl_hard-passage.qrels"), "--unjudged", "bounds",
		"-m", "nDCG@10", "-m", "AP", "-m", "R@100", "-m", "RR@10",
		filepath.Join(dir, "runs", "bm25.run.gz"), "t5=" + filepath.Join(dir, "runs", "bm25_t5_zs.run.gz")}
	checkShardsMerge(t, args, nil, []string{"json", "table", "jsonl", "csv", "trec"}, []int{4, 7}, 0)
	checkShardsMerge(t, append(args, "--csv-comments"), []string{"--csv-comments"}, []string{"csv"}, []int{4}, 0)
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  merged: " + la[i] + "\n  single: " + lb[i]
		}
	}
	return "lengths differ: " + strconv.Itoa(len(la)) + " vs " + strconv.Itoa(len(lb)) + " lines"
}

// TestMergeRefuses checks that overlapping, missing and disagreeing parts
// are refused, by name.
func TestMergeRefuses(t *testing.T) {
	dir := exampleDir(t)
	t.Chdir(dir)
	part := func(name, shard string, extra ...string) string {
		args := append([]string{"eval", "-j", "qrels.jsonl", "-k", "3", "-f", "json", "--shard", shard, "A.jsonl"}, extra...)
		out, errs, code := ragstat(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", shard, code, errs)
		}
		if err := os.WriteFile(name, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	a, b, c := part("a.json", "0/3"), part("b.json", "1/3"), part("c.json", "2/3")
	linear := part("linear.json", "2/3", "--gain", "linear")
	other := part("other.json", "1/2")
	whole, _, _ := ragstat(t, "", "eval", "-j", "qrels.jsonl", "-k", "3", "-f", "json", "A.jsonl")
	if err := os.WriteFile("whole.json", []byte(whole), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		parts []string
		want  string
	}{
		{[]string{a, b, b, c}, "b.json and b.json are both shard 1/3 (overlap)"},
		{[]string{a, c}, "shard(s) 1/3 missing (gap)"},
		{[]string{a, b, other}, "other.json is shard 1/2 but a.json is shard 0/3"},
		{[]string{a, b, linear}, "a.json and linear.json disagree on policy.gain"},
		{[]string{a, b, "whole.json"}, "whole.json is not a partial result"},
	} {
		_, errs, code := ragstat(t, "", append([]string{"merge"}, tc.parts...)...)
		if code != exitInput || !strings.Contains(errs, tc.want) {
			t.Errorf("merge %v: exit %d, %q; want exit 2 and %q", tc.parts, code, errs, tc.want)
		}
	}
	// A part edited after it was written: its own record refuses it.
	parts := []string{a, b, c}
	i := slices.IndexFunc(parts, func(p string) bool { return len(runQueries(t, p)) > 0 })
	edited := func(name string, edit func(doc map[string]any, queries []any) []any) []string {
		t.Helper()
		doc := readDoc(t, parts[i])
		run := doc["runs"].([]any)[0].(map[string]any)
		run["queries"] = edit(doc, run["queries"].([]any))
		writeDoc(t, name, doc)
		return slices.Concat(parts[:i], []string{name}, parts[i+1:])
	}
	value := func(v any) func(map[string]any, []any) []any {
		return func(_ map[string]any, qs []any) []any {
			qs[0].(map[string]any)["metrics"].(map[string]any)["nDCG@3"] = v
			return qs
		}
	}
	for _, tc := range []struct {
		parts []string
		want  string
	}{
		{edited("deleted.json", func(_ map[string]any, qs []any) []any { return qs[1:] }), "has no row for query"},
		{edited("twice.json", func(_ map[string]any, qs []any) []any { return append(qs, qs[0]) }), "appears twice"},
		{edited("huge.json", value(1e308)), "do not match the digest its manifest records"},
		{edited("null.json", value(nil)), "do not match the digest its manifest records"},
		{edited("undigested.json", func(doc map[string]any, qs []any) []any {
			delete(doc["manifest"].(map[string]any)["shard"].(map[string]any), "values_sha256")
			return qs
		}), "records no digest of its values"},
		{edited("stray.json", func(doc map[string]any, qs []any) []any { // a query of another shard taken in
			var other string
			for _, p := range parts {
				for q := range readDoc(t, p)["manifest"].(map[string]any)["shard"].(map[string]any)["judged_positions"].(map[string]any) {
					if p != parts[i] {
						other = q
					}
				}
			}
			if other == "" {
				t.Fatal("no other part holds a query")
			}
			doc["manifest"].(map[string]any)["shard"].(map[string]any)["judged_positions"].(map[string]any)[other] = 99
			return qs
		}), "which belongs to shard"},
	} {
		_, errs, code := ragstat(t, "", append([]string{"merge"}, tc.parts...)...)
		if code != exitInput || !strings.Contains(errs, tc.want) {
			t.Errorf("merge %v: exit %d, %q; want exit 2 and %q", tc.parts, code, errs, tc.want)
		}
	}
	if _, errs, code := ragstat(t, "", "eval", "-j", "qrels.jsonl", "--shard", "3/3", "A.jsonl"); code != exitInput || !strings.Contains(errs, "stays below the count") {
		t.Errorf("--shard 3/3: exit %d, %q", code, errs)
	}
}

// writeShards runs args as every shard of n with --format json and writes
// each part to dir as PREFIX<i>of<n>.json, returning the parts' paths.
func writeShards(t *testing.T, dir, prefix string, args []string, n int) []string {
	t.Helper()
	var parts []string
	for i := range n {
		out, errs, code := ragstat(t, "", append(args, "-f", "json", "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))...)
		if code != 0 {
			t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, errs)
		}
		p := filepath.Join(dir, prefix+strconv.Itoa(i)+"of"+strconv.Itoa(n)+".json")
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	return parts
}

func readDoc(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func writeDoc(t *testing.T, path string, doc map[string]any) {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runQueries is the first run's per-query rows of a saved eval result.
func runQueries(t *testing.T, path string) []any {
	qs, _ := readDoc(t, path)["runs"].([]any)[0].(map[string]any)["queries"].([]any)
	return qs
}
