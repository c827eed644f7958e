package main

import (
	"bufio"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

type parquetRunRow struct {
	Query string  `parquet:"query"`
	Item  string  `parquet:"item"`
	Score float32 `parquet:"score"`
	Rank  int32   `parquet:"rank"`
}

// trecRows reads a gzipped TREC run's rows.
func trecRows(t *testing.T, path string) []parquetRunRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rows []parquetRunRow
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		rank, err1 := strconv.Atoi(f[3])
		score, err2 := strconv.ParseFloat(f[4], 32)
		if len(f) != 6 || err1 != nil || err2 != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		rows = append(rows, parquetRunRow{Query: f[0], Item: f[2], Score: float32(score), Rank: int32(rank)})
	}
	return rows
}

func writeParquet[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestParquetRunMatchesTREC writes a real run as Parquet, its rows
// shuffled, and checks that every per-query value equals the TREC file's;
// then reads back the per-query Parquet output and checks it against the
// JSON Lines one.
func TestParquetRunMatchesTREC(t *testing.T) {
	dir := sharedtest.Dir(t, "data/dl-hard-passage")
	tmp := t.TempDir()
	rows := trecRows(t, filepath.Join(dir, "runs", "bm25.run.gz"))
	// The TREC file's scores are written with float32 precision, so both
	// sides rank the same numbers.
	var trec strings.Builder
	for _, r := range rows {
		trec.WriteString(r.Query + " Q0 " + r.Item + " " + strconv.Itoa(int(r.Rank)) + " " + strconv.FormatFloat(float64(r.Score), 'g', -1, 64) + " bm25\n")
	}
	trecPath := filepath.Join(tmp, "run.txt")
	if err := os.WriteFile(trecPath, []byte(trec.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	pqPath := filepath.Join(tmp, "run.parquet")
	writeParquet(t, pqPath, rows)
	qrels := filepath.Join(dir, "dl_hard-passage.qrels")
	args := []string{"eval", "-j", qrels, "--unjudged", "bounds", "-m", "nDCG@10", "-m", "AP", "-m", "R@100", "-f", "trec"}
	want, errs, code := ragstat(t, "", append(args, "bm25="+trecPath)...)
	if code != 0 {
		t.Fatalf("TREC: exit %d: %s", code, errs)
	}
	pqOut := filepath.Join(tmp, "rows.parquet")
	got, errs, code := ragstat(t, "", append(args, "bm25="+pqPath, "--per-query-out", pqOut)...)
	if code != 0 {
		t.Fatalf("Parquet: exit %d: %s", code, errs)
	}
	if got != want {
		t.Fatalf("Parquet run scores differ from the TREC run's:\n%s", firstDiff(got, want))
	}
	if _, errs, code := ragstat(t, "", append(args, "bm25="+pqPath, "--per-query-out", pqOut)...); code != exitInput || !strings.Contains(errs, "--force") {
		t.Errorf("existing --per-query-out file: exit %d, %q", code, errs)
	}

	type outRow struct {
		Run     string  `parquet:"run"`
		Query   string  `parquet:"query"`
		NDCG    float64 `parquet:"nDCG@10"`
		NDCGHi  float64 `parquet:"nDCG@10_high"`
		AP      float64 `parquet:"AP"`
		Missing bool    `parquet:"missing_from_run"`
	}
	back, err := parquet.ReadFile[outRow](pqOut)
	if err != nil {
		t.Fatal(err)
	}
	jsonOut := filepath.Join(tmp, "rows.jsonl")
	if _, errs, code := ragstat(t, "", append(args, "bm25="+pqPath, "--per-query-out", jsonOut)...); code != 0 {
		t.Fatalf("JSONL out: exit %d: %s", code, errs)
	}
	lines, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	jl := strings.Split(strings.TrimSpace(string(lines)), "\n")
	if len(back) != 50 || len(jl) != 51 {
		t.Fatalf("%d Parquet rows and %d JSON lines for 50 queries", len(back), len(jl))
	}
	for i, r := range back {
		want := `{"run":"bm25","query":"` + r.Query + `","metrics":{"AP":[` + strconv.FormatFloat(r.AP, 'g', -1, 64)
		if r.Run != "bm25" || !strings.HasPrefix(jl[i], want) || !strings.Contains(jl[i], `"nDCG@10":[`+strconv.FormatFloat(r.NDCG, 'g', -1, 64)+","+strconv.FormatFloat(r.NDCGHi, 'g', -1, 64)+"]") {
			t.Errorf("row %d: Parquet %+v, JSON %s", i, r, jl[i])
		}
	}
}

// TestParquetRunErrors checks that a Parquet run with unknown or missing
// columns, or a row without an item, is refused by name.
func TestParquetRunErrors(t *testing.T) {
	dir := exampleDir(t)
	t.Chdir(dir)
	type extra struct {
		Query string  `parquet:"query"`
		Item  string  `parquet:"item"`
		Score float64 `parquet:"score"`
		Docno string  `parquet:"docno"`
	}
	type noScore struct {
		Query string `parquet:"query"`
		Item  string `parquet:"item"`
	}
	type nullable struct {
		Query string   `parquet:"query"`
		Item  *string  `parquet:"item,optional"`
		Score *float64 `parquet:"score,optional"`
	}
	writeParquet(t, "extra.parquet", []extra{{"refund", "a", 1, "x"}})
	writeParquet(t, "noscore.parquet", []noScore{{"refund", "a"}})
	a, one := "a", 1.0
	writeParquet(t, "null.parquet", []nullable{{"refund", &a, &one}, {"refund", nil, &one}})
	for _, tc := range []struct{ file, want string }{
		{"extra.parquet", `extra.parquet: unknown column "docno"`},
		{"noscore.parquet", `noscore.parquet: no column "score"`},
		{"null.parquet", `null.parquet:2: query "refund": row has no item`},
	} {
		_, errs, code := ragstat(t, "", "eval", "-j", "qrels.jsonl", "-k", "3", tc.file)
		if code != exitInput || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, %q; want %q", tc.file, code, errs, tc.want)
		}
	}
}

// TestParquetTraces writes the example's traces as a Parquet table of JSON
// traces and checks that stages and compare print what they print from the
// JSON Lines, and that a bad trace names its row.
func TestParquetTraces(t *testing.T) {
	dir := filepath.Join(exampleDir(t), "pipeline")
	t.Chdir(dir)
	type traceRow struct {
		Trace string `parquet:"trace"`
	}
	for _, name := range []string{"traces-v1", "traces-v2"} {
		data, err := os.ReadFile(name + ".jsonl")
		if err != nil {
			t.Fatal(err)
		}
		var rows []traceRow
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			rows = append(rows, traceRow{line})
		}
		writeParquet(t, name+".parquet", rows)
	}
	for _, cmd := range [][]string{
		{"stages", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl", "--tokenizer", "o200k_base", "--k", "candidates=4"},
		{"compare", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl"},
	} {
		want, errs, code := ragstat(t, "", append(cmd, "traces-v1.jsonl", "traces-v2.jsonl")...)
		if code != 0 {
			t.Fatalf("%s on JSON Lines: exit %d: %s", cmd[0], code, errs)
		}
		got, errs, code := ragstat(t, "", append(cmd, "traces-v1.parquet", "traces-v2.parquet")...)
		if code != 0 {
			t.Fatalf("%s on Parquet: exit %d: %s", cmd[0], code, errs)
		}
		got = strings.ReplaceAll(got, ".parquet", ".jsonl")
		if got != want {
			t.Errorf("%s on Parquet differs from JSON Lines:\n%s", cmd[0], firstDiff(got, want))
		}
	}
	writeParquet(t, "bad.parquet", []traceRow{{`{"query":"refund","system":"s","stages":[]}`}})
	_, errs, code := ragstat(t, "", "stages", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "bad.parquet")
	if code != exitInput || !strings.Contains(errs, `bad.parquet:1: query "refund": no "stages"`) {
		t.Errorf("bad trace: exit %d, %q", code, errs)
	}
}

// TestParquetJudgments writes real judgments as Parquet and checks that
// eval prints what it prints from the TREC qrels; a grade off the scale
// names its row.
func TestParquetJudgments(t *testing.T) {
	dir := sharedtest.Dir(t, "data/dl-hard-passage")
	tmp := t.TempDir()
	type judged struct {
		Query string `parquet:"query"`
		Item  string `parquet:"item"`
		Grade int32  `parquet:"grade"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "dl_hard-passage.qrels"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []judged
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		g, err := strconv.Atoi(f[3])
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, judged{f[0], f[2], int32(g)})
	}
	pq := filepath.Join(tmp, "qrels.parquet")
	writeParquet(t, pq, rows)
	run := "bm25=" + filepath.Join(dir, "runs", "bm25.run.gz")
	args := []string{"eval", "--unjudged", "nonrelevant", "-m", "nDCG@10", "-m", "AP", "-f", "trec", run}
	want, errs, code := ragstat(t, "", append(args, "-j", filepath.Join(dir, "dl_hard-passage.qrels"))...)
	if code != 0 {
		t.Fatalf("TREC qrels: exit %d: %s", code, errs)
	}
	got, errs, code := ragstat(t, "", append(args, "-j", pq)...)
	if code != 0 || got != want {
		t.Fatalf("Parquet qrels: exit %d: %s\n%s", code, errs, firstDiff(got, want))
	}
	rows[1].Grade = 7
	writeParquet(t, pq, rows)
	if _, errs, code := ragstat(t, "", append(args, "-j", pq)...); code != exitInput || !strings.Contains(errs, "qrels.parquet:2:") {
		t.Errorf("grade 7: exit %d, %q", code, errs)
	}
}
