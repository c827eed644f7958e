package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/assess"
	"github.com/ragstat/ragstat/judgments"
)

func judgingFile(name string) string { return filepath.Join(testdataDir, "judging."+name) }

func TestBaselineCommand(t *testing.T) {
	dir := t.TempDir()
	run1, run2 := filepath.Join(dir, "a.run"), filepath.Join(dir, "b.run")
	for _, out := range []string{run1, run2} {
		stdout, stderr, code := ragstat(t, "", "baseline", "--corpus", judgingFile("corpus.jsonl"), "--topics", judgingFile("topics.jsonl"), "-k", "3", "--out", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "BM25 over 7 passages (1 without text left out), 2 queries, top 3") {
			t.Errorf("stdout %q", stdout)
		}
	}
	a, _ := os.ReadFile(run1)
	b, _ := os.ReadFile(run2)
	if !bytes.Equal(a, b) {
		t.Error("two runs of the baseline differ")
	}
	golden(t, "judging.bm25.golden", string(a))
	// The run is one eval reads as it is.
	if _, stderr, code := ragstat(t, "", "eval", "-j", judgingFile("qrels"), "--grades=-1..3", "--unjudged", "skip", "-k", "3", run1); code != 0 {
		t.Errorf("eval of the baseline run: exit %d: %s", code, stderr)
	}
	if _, stderr, code := ragstat(t, "", "baseline", "--corpus", judgingFile("corpus.jsonl"), "--topics", judgingFile("topics.jsonl"), "-k", "0", "--out", run1, "--force"); code != 2 || !strings.Contains(stderr, "at least 1") {
		t.Errorf("-k 0: exit %d: %s", code, stderr)
	}
}

func poolArgs(extra ...string) []string {
	args := []string{"pool", "--depth", "2", "--judgments", judgingFile("qrels"), "--seed", "7",
		"bm25=" + judgingFile("bm25.golden"), "dense=" + judgingFile("dense.jsonl"), judgingFile("trace.jsonl")}
	return append(args, extra...)
}

func TestPoolCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "queue.jsonl")
	stdout, stderr, code := ragstat(t, "", poolArgs("--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "judging.pool.golden", strings.ReplaceAll(stdout, out, "queue.jsonl"))
	queue, _ := os.ReadFile(out)
	golden(t, "judging.queue.golden", string(queue))
	// The same input and seed give the same queue; another seed another order.
	stdout2, _, _ := ragstat(t, "", poolArgs("--out", "-")...)
	if stdout2 != string(queue) {
		t.Error("pool is not deterministic")
	}
	other, _, _ := ragstat(t, "", append(poolArgs("--out", "-"), "--seed", "8")...)
	if other == string(queue) {
		t.Error("another seed gave the same order")
	}
	// --stage picks one stage of every trace: cafeteria, from rag's
	// candidates only, drops out; a pair judged -1 counts as unjudged.
	if !strings.Contains(string(queue), `{"query":"limits","item":"cafeteria","systems":["rag"]`) {
		t.Error("the candidates stage or the -1 judgment was not pooled")
	}
	staged, stderr, code := ragstat(t, "", poolArgs("--out", "-", "--stage", "reranked")...)
	if code != 0 || strings.Contains(staged, `"cafeteria","systems":["rag"]`) || !strings.Contains(stderr, "4 pairs to judge") {
		t.Errorf("--stage reranked: exit %d, %s\n%s", code, stderr, staged)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{poolArgs("--out", "-", "--stage", "nope"), `system "rag" has no stage "nope" (it has candidates, reranked)`},
		{[]string{"pool", "--out", "-", "x=" + judgingFile("dense.jsonl"), "x=" + judgingFile("bm25.golden")}, `two systems are named "x"`},
		{poolArgs("--out", "-", "--depth", "0"), "depth of at least 1"},
		{[]string{"pool", "--out", "-", judgingFile("missing.run")}, "no such file"},
	} {
		_, stderr, code := ragstat(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s", c.args[len(c.args)-2:], code, stderr)
		}
	}
}

// seedDB makes a judgments database graded by two assessors.
func seedDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "judgments.db")
	db, err := assess.Open(path, assess.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, g := range []assess.Grade{
		{Assessor: "ann", Key: assess.Key{Query: "refund", Item: "refund-faq"}, Grade: 3},
		{Assessor: "ann", Key: assess.Key{Query: "refund", Item: "cafeteria"}, Grade: 0},
		{Assessor: "ann", Key: assess.Key{Query: "limits", Item: "limits-premium"}, Grade: 1},
		{Assessor: "bob", Key: assess.Key{Query: "refund", Item: "refund-faq"}, Grade: 2},
		{Assessor: "bob", Key: assess.Key{Query: "refund", Item: "cafeteria"}, Grade: 0},
	} {
		g.At = at
		if err := db.SaveGrade(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.AddSpan(ctx, assess.Span{Assessor: "ann", Key: assess.Key{Query: "refund", Item: "refund-faq"}, Fact: "days", Text: "5 to 10 business days", At: at}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestJudgeExportAndAgreement(t *testing.T) {
	path := seedDB(t)
	_, stderr, code := ragstat(t, "", "judge", "export", "--db", path)
	if code != 2 || !strings.Contains(stderr, "2 assessors graded (ann, bob): choose one with --assessor NAME or merge them") {
		t.Errorf("export without a choice: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := ragstat(t, "", "judge", "export", "--db", path, "--format", "jsonl", "--assessor", "ann")
	if code != 0 || !strings.Contains(stderr, "exported 3 judgments") {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	golden(t, "judging.export.golden", stdout)
	exported := filepath.Join(t.TempDir(), "qrels.jsonl")
	os.WriteFile(exported, []byte(stdout), 0o644)
	run := filepath.Join(t.TempDir(), "run.jsonl")
	os.WriteFile(run, []byte(`{"query":"refund","items":["refund-faq","cafeteria"]}`+"\n"+`{"query":"limits","items":["limits-premium"]}`+"\n"), 0o644)
	evalOut, stderr, code := ragstat(t, "", "eval", "-j", exported, "-k", "2", run)
	if code != 0 || !strings.Contains(evalOut, "refund") {
		t.Errorf("eval of the export: exit %d: %s\n%s", code, stderr, evalOut)
	}
	trec, _, code := ragstat(t, "", "judge", "export", "--db", path, "--format", "trec", "--merge", "max")
	if code != 0 || trec != "limits 0 limits-premium 1\nrefund 0 cafeteria 0\nrefund 0 refund-faq 3\n" {
		t.Errorf("trec --merge max: exit %d:\n%s", code, trec)
	}
	agree, stderr, code := ragstat(t, "", "judge", "agreement", "--db", path)
	if code != 0 {
		t.Fatalf("agreement: exit %d: %s", code, stderr)
	}
	golden(t, "judging.agreement.golden", agree)
	if _, stderr, code := ragstat(t, "", "judge", "export", "--db", filepath.Join(t.TempDir(), "none.db")); code != 2 || !strings.Contains(stderr, "no such database") {
		t.Errorf("missing db: exit %d: %s", code, stderr)
	}
}

// TestJudgeRefusesBadInput: a queue naming items missing from the corpus, a
// duplicate queue entry, or a database that is not a judgments database
// stop `ragstat judge` before it serves, with a clear error, and change
// nothing stored.
func TestJudgeRefusesBadInput(t *testing.T) {
	path := seedDB(t)
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	missing := write("missing.jsonl", `{"query":"refund","item":"refund-faq","systems":["a"],"order":1}`+"\n"+`{"query":"refund","item":"ghost","systems":["a"],"order":2}`+"\n")
	dup := write("dup.jsonl", `{"query":"refund","item":"refund-faq","systems":["a"],"order":1}`+"\n"+`{"query":"refund","item":"refund-faq","systems":["b"],"order":2}`+"\n")
	notext := write("notext.jsonl", `{"query":"refund","item":"no-text","systems":["a"],"order":1}`+"\n")
	garbage := write("garbage.db", "not a database at all, just some bytes that are long enough\n")
	before, _ := os.ReadFile(path)
	for _, c := range []struct {
		queue, db, want string
		args            []string
	}{
		{missing, path, `missing.jsonl:2: query "refund", item "ghost": item is not in the corpus`, nil},
		{dup, path, `dup.jsonl:2: query "refund", item "refund-faq": duplicate queue entry (also line 1)`, nil},
		{notext, path, `item "no-text": the item has no text in the corpus`, nil},
		{judgingFile("queue.golden"), garbage, "garbage.db is not a SQLite database", nil},
		{judgingFile("queue.golden"), path, "holds grades on the scale 0..3, not 0..4: resume it with --grades 0..3", []string{"--grades", "0..4"}},
		{judgingFile("queue.golden"), path, `--grades: grade scale "3..1"`, []string{"--grades", "3..1"}},
		{judgingFile("queue.golden"), path, "the assessment app takes from 1 to 101 grades", []string{"--grades", "0..1000"}},
	} {
		args := append([]string{"judge", "--db", c.db, "--queue", c.queue, "--corpus", judgingFile("corpus.jsonl"), "--topics", judgingFile("topics.jsonl")}, c.args...)
		_, stderr, code := ragstat(t, "", args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("exit %d, %s; want %q", code, stderr, c.want)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a refused queue changed the database")
	}
	stdout, _, _ := ragstat(t, "", "judge", "export", "--db", path, "--format", "trec", "--assessor", "bob")
	if stdout != "refund 0 cafeteria 0\nrefund 0 refund-faq 2\n" {
		t.Errorf("stored grades after the refusals:\n%s", stdout)
	}
}

// TestJudgeOnAnotherScale: a database created on 0..4 keeps grade 4 through
// export, and the export says which --grades reads it.
func TestJudgeOnAnotherScale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "judgments.db")
	scale := judgments.Scale{Min: 0, Max: 4}
	db, err := assess.Open(path, assess.OpenOptions{Create: true, Scale: &scale})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SaveGrade(context.Background(), assess.Grade{Assessor: "ann", Key: assess.Key{Query: "refund", Item: "refund-faq"}, Grade: 4}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	stdout, stderr, code := ragstat(t, "", "judge", "export", "--db", path, "--format", "trec")
	if code != 0 || stdout != "refund 0 refund-faq 4\n" || !strings.Contains(stderr, "exported 1 judgments on grades 0..4: evaluate them with --grades 0..4") {
		t.Errorf("export: exit %d: %s%s", code, stdout, stderr)
	}
	agree, _, code := ragstat(t, "", "judge", "agreement", "--db", path)
	if code != 0 || !strings.Contains(agree, "(i-j)²/16, grades 0..4") {
		t.Errorf("agreement: exit %d: %s", code, agree)
	}
}
