package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hostileIDs are query ids that would be layout if printed raw: a line
// break and tabs that forge trec's summary line, a spreadsheet formula,
// Markdown's cell end and inline HTML, a bidirectional override, a
// leading quote.
var hostileIDs = []string{"q2\nnDCG@10 \tall\t0.9999", "=cmd|calc!A1", "a|b<img src=x>", "abc\u202egpj.exe", `"q`, "-1+1", "plain"}

// writeHostile writes judgments of hostileIDs and two runs, A and B, named
// "@A" and "+B", into dir.
func writeHostile(t *testing.T, dir string) (qrels, a, b string) {
	t.Helper()
	var q, ra, rb strings.Builder
	line := func(sb *strings.Builder, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(data)
		sb.WriteByte('\n')
	}
	for i, id := range hostileIDs {
		line(&q, map[string]any{"query": id, "item": "d1", "grade": 1})
		line(&q, map[string]any{"query": id, "item": "d2", "grade": 0})
		line(&ra, map[string]any{"query": id, "items": []string{"d1", "d2"}})
		if i%2 == 0 {
			line(&rb, map[string]any{"query": id, "items": []string{"d2", "d1"}})
		} else {
			line(&rb, map[string]any{"query": id, "items": []string{"d1"}})
		}
	}
	for name, text := range map[string]string{"qrels.jsonl": q.String(), "A.jsonl": ra.String(), "B.jsonl": rb.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "qrels.jsonl"), "@A=" + filepath.Join(dir, "A.jsonl"), "+B=" + filepath.Join(dir, "B.jsonl")
}

// TestHostileIDs: in every text format ids are data, never layout (see
// docs/formats.md): golden files per format, and each format's lines
// counted and parsed.
func TestHostileIDs(t *testing.T) {
	qrels, a, b := writeHostile(t, t.TempDir())
	for _, format := range []string{"table", "csv", "tsv", "markdown", "trec"} {
		out, errs, code := ragstat(t, "", "eval", "-j", qrels, "-m", "nDCG@10", "-m", "P@1", "--per-query", a, b, "--format", format)
		if code != 0 {
			t.Fatalf("eval %s: exit %d: %s", format, code, errs)
		}
		golden(t, "ids.eval."+format+".golden", strings.ReplaceAll(out, Version, "VERSION"))
		checkLayout(t, "eval "+format, format, out, 2*(len(hostileIDs)+1))
	}
	for _, format := range []string{"table", "csv", "markdown", "html"} {
		out, errs, code := ragstat(t, "", "compare", "-j", qrels, "-m", "nDCG@10", a, b, "--format", format)
		if code != 0 {
			t.Fatalf("compare %s: exit %d: %s", format, code, errs)
		}
		if format != "html" {
			golden(t, "ids.compare."+format+".golden", strings.ReplaceAll(out, Version, "VERSION"))
		}
		for _, id := range []string{hostileIDs[0], hostileIDs[3]} { // control and format characters
			if strings.Contains(out, id) {
				t.Errorf("compare %s prints %q raw", format, id)
			}
		}
		if format == "csv" {
			checkLayout(t, "compare csv", "csv", out, 1)
		}
	}
}

// checkLayout parses out as format and checks that it has rows rows of
// data (trec: rows times the two metrics) and no cell a spreadsheet reads
// as a formula.
func checkLayout(t *testing.T, what, format, out string, rows int) {
	t.Helper()
	switch format {
	case "csv", "tsv":
		r := csv.NewReader(strings.NewReader(out))
		if format == "tsv" {
			r.Comma = '\t'
		}
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(recs) != rows+1 {
			t.Errorf("%s: %d records, want %d", what, len(recs), rows+1)
		}
		for _, rec := range recs {
			for _, cell := range rec {
				if _, err := strconv.ParseFloat(cell, 64); err != nil && cell != "" && strings.ContainsAny(cell[:1], "=+-@") {
					t.Errorf("%s: cell %q read as a formula", what, cell)
				}
			}
		}
	case "trec":
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 2+2*rows {
			t.Errorf("%s: %d lines, want %d", what, len(lines), 2+2*rows)
		}
		for _, l := range lines {
			if f := strings.Split(l, "\t"); len(f) != 3 {
				t.Errorf("%s: line %q has %d fields", what, l, len(f))
			}
		}
	case "table", "markdown":
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		n := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "@A") || strings.HasPrefix(l, "+B") || strings.HasPrefix(l, "| @A") || strings.HasPrefix(l, "| +B") {
				n++
			}
		}
		if n != rows {
			t.Errorf("%s: %d rows, want %d:\n%s", what, n, rows, out)
		}
		if format == "markdown" {
			for _, l := range lines {
				if strings.HasPrefix(l, "| @A") && strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") != 5 {
					t.Errorf("%s: row %q has other than 4 cells", what, l)
				}
			}
		}
	}
}

// TestTrecQueryAll: a query named "all" cannot be told from trec's mean: bad input, nothing printed.
func TestTrecQueryAll(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.txt"), []byte("all 0 d1 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "r.txt"), []byte("all Q0 d1 1 1 r\n"), 0o644)
	out, errs, code := ragstat(t, "", "eval", "-j", filepath.Join(dir, "q.txt"), filepath.Join(dir, "r.txt"), "--per-query", "-f", "trec")
	if code != exitInput || out != "" || !strings.Contains(errs, `a query is named "all"`) {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestHostileNotes: a run name holding a line break cannot forge a line of
// the notes on standard error.
func TestHostileNotes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.txt"), []byte("q1 0 d1 1\nq2 0 d1 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "r.txt"), []byte("q1 Q0 d1 1 1 r\n"), 0o644)
	_, errs, code := ragstat(t, "", "eval", "-j", filepath.Join(dir, "q.txt"), "x\nragstat: forged="+filepath.Join(dir, "r.txt"),
		"--queries", "judged", "-f", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, `ragstat: "x\nragstat: forged": 1 judged queries absent from the run`) || strings.Contains(errs, "\nragstat: forged") {
		t.Errorf("notes:\n%s", errs)
	}
}

// TestHostileIDsStages: stages prints every id that comes from the data
// (system, stage, query, item, fact) by the same rule, in its table (every
// listing included) and its HTML: the same traces with hostile ids and
// with plain ones give the same lines, and no hostile id is printed raw.
func TestHostileIDsStages(t *testing.T) {
	write := func(dir string, id func(i int) string) []string {
		var traces, judgments, topicLines strings.Builder
		line := func(sb *strings.Builder, v any) {
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			sb.Write(append(data, '\n'))
		}
		system, stage, item, kept, fact := id(0), id(1), id(2), id(3), id(4)
		for i := range 3 {
			q := id(5 + i)
			line(&traces, map[string]any{"query": q, "system": system, "stages": []any{
				map[string]any{"name": stage, "items": []any{map[string]any{"id": item}, map[string]any{"id": kept}}},
				map[string]any{"name": "context", "text": "kept text", "items": []any{map[string]any{"id": kept, "text": "kept text"}}}},
				"answer": map[string]any{"text": "a", "citations": []string{item}, "abstained": false}})
			line(&judgments, map[string]any{"query": q, "item": item, "grade": 2})
			line(&judgments, map[string]any{"query": q, "item": kept, "grade": 1, "spans": []string{"lost span"}})
			line(&topicLines, map[string]any{"id": q, "text": "x", "facts": []any{map[string]any{"id": fact, "support": []any{map[string]any{"item": item}}}}})
		}
		paths := []string{filepath.Join(dir, "j.jsonl"), filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "tr.jsonl")}
		for i, text := range []string{judgments.String(), topicLines.String(), traces.String()} {
			if err := os.WriteFile(paths[i], []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return []string{"stages", "-j", paths[0], "--topics", paths[1], "--per-query", paths[2]}
	}
	hostile := write(t.TempDir(), func(i int) string { return hostileIDs[i%len(hostileIDs)] + strconv.Itoa(i) })
	plain := write(t.TempDir(), func(i int) string { return "id" + strconv.Itoa(i) })
	for _, format := range []string{"table", "html"} {
		got, errs, code := ragstat(t, "", append(hostile, "-f", format)...)
		if code != 0 {
			t.Fatalf("stages %s: exit %d: %s", format, code, errs)
		}
		want, errs, code := ragstat(t, "", append(plain, "-f", format)...)
		if code != 0 {
			t.Fatalf("stages %s with plain ids: exit %d: %s", format, code, errs)
		}
		if g, w := strings.Count(got, "\n"), strings.Count(want, "\n"); g != w {
			t.Errorf("stages %s: %d lines with hostile ids, %d with plain ones:\n%s", format, g, w, got)
		}
		for i := range 8 {
			if id := hostileIDs[i%len(hostileIDs)] + strconv.Itoa(i); strings.ContainsAny(id, "\n\u202e") && strings.Contains(got, id) {
				t.Errorf("stages %s prints %q raw", format, id)
			}
		}
		for _, l := range strings.Split(got, "\n") {
			if strings.ContainsAny(l, "\r\u202e") {
				t.Errorf("stages %s: a line holds a control or format character: %q", format, l)
			}
		}
	}
}

// TestHostileIDsAudit: audit's table and Markdown print query ids, slice
// names (tags from the topics) and systems by the rule for ids: hostile
// ones give the lines plain ones give.
func TestHostileIDsAudit(t *testing.T) {
	write := func(dir string, id func(i int) string) []string {
		var q, a, b, topics strings.Builder
		line := func(sb *strings.Builder, v any) {
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			sb.Write(append(data, '\n'))
		}
		for i := range 6 {
			query := id(i)
			line(&q, map[string]any{"query": query, "item": "d1", "grade": 1})
			line(&a, map[string]any{"query": query, "items": []string{"d1", "d2"}})
			line(&b, map[string]any{"query": query, "items": []string{"d2", "d1"}})
			line(&topics, map[string]any{"id": query, "text": "x", "tags": []string{id(10 + i%2)}})
		}
		var paths []string
		for name, text := range map[string]string{"q.jsonl": q.String(), "a.jsonl": a.String(), "b.jsonl": b.String(), "t.jsonl": topics.String()} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, filepath.Join(dir, name))
		}
		return []string{"audit", "--unjudged", "nonrelevant", "-j", filepath.Join(dir, "q.jsonl"), "--topics", filepath.Join(dir, "t.jsonl"),
			id(21) + "=" + filepath.Join(dir, "a.jsonl"), id(24) + "=" + filepath.Join(dir, "b.jsonl")}
	}
	hostile := write(t.TempDir(), func(i int) string { return "x" + hostileIDs[i%len(hostileIDs)] + strconv.Itoa(i) })
	plain := write(t.TempDir(), func(i int) string { return "x" + strconv.Itoa(i) })
	for _, format := range []string{"table", "markdown"} {
		got, errs, code := ragstat(t, "", append(hostile, "-f", format)...)
		want, _, code2 := ragstat(t, "", append(plain, "-f", format)...)
		if code != 0 || code2 != 0 {
			t.Fatalf("audit %s: exit %d with hostile ids, %d with plain ones: %s", format, code, code2, errs)
		}
		if g, w := strings.Count(got, "\n"), strings.Count(want, "\n"); g != w {
			t.Errorf("audit %s: %d lines with hostile ids, %d with plain ones:\n%s\n%s", format, g, w, got, want)
		}
		if strings.ContainsRune(got, '\u202e') || format == "markdown" && strings.Contains(strings.ReplaceAll(got, `\<`, ""), "<img") {
			t.Errorf("audit %s prints an id raw:\n%s", format, got)
		}
	}
}
