package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	goldenfile "github.com/ragstat/ragstat/internal/golden"
)

// ragstat runs the command in-process and returns stdout, stderr and the
// exit status.
func ragstat(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb})
	return out.String(), errb.String(), code
}

// golden compares got with testdata/name (see package golden).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join(testdataDir, name), got)
}

func exampleDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, _, code := ragstat(t, "", "demo", "--write", dir); code != 0 {
		t.Fatal("demo --write failed")
	}
	return dir
}

func TestDemo(t *testing.T) {
	out, _, code := ragstat(t, "", "demo")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	golden(t, "demo.golden", out)
	// The columns are eval's names, and the guidance says how to get the
	// command it names.
	if !strings.Contains(out, "run query   R@3    RR@3   nDCG@3\n") || !strings.Contains(out, "go install ./cmd/ragstat") {
		t.Errorf("demo: eval's column names, or how to get ragstat, missing")
	}
	for _, row := range []string{
		"A   refund  1.0000 1.0000 0.7364", "A   limits  0.5000 1.0000 0.7872",
		"A   restore 1.0000 0.5000 0.6653", "A   MEAN    0.8333 0.8333 0.7296",
		"B   refund  1.0000 1.0000 1.0000", "B   limits  1.0000 0.5000 0.6064",
		"B   restore 1.0000 1.0000 0.9558", "B   MEAN    1.0000 0.8333 0.8541",
	} {
		if !strings.Contains(out, row+"\n") {
			t.Errorf("demo lacks the article's row %q", row)
		}
	}
}

// TestFormats renders the example in every output format.
func TestFormats(t *testing.T) {
	dir := exampleDir(t)
	t.Chdir(dir)
	for _, format := range []string{"table", "json", "jsonl", "csv", "tsv", "markdown", "trec"} {
		out, errs, code := ragstat(t, "", "eval", "-j", "qrels.jsonl", "-k", "3", "A=A.jsonl", "B.jsonl", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		golden(t, "eval."+format+".golden", strings.ReplaceAll(out, Version, "VERSION"))
	}
}

// testdataDir is absolute, so tests may change directory.
var testdataDir = func() string { d, _ := os.Getwd(); return filepath.Join(d, "testdata") }()

func TestPoliciesPrinted(t *testing.T) {
	dir := exampleDir(t)
	out, _, _ := ragstat(t, "", "eval", "-j", filepath.Join(dir, "qrels.jsonl"), filepath.Join(dir, "A.jsonl"),
		"--min-grade", "2", "--gain", "linear", "--unjudged", "bounds", "-m", "nDCG@3", "-m", "ndcg_cut.5")
	for _, w := range []string{"# min-grade: 2", "# gain: linear", "# unjudged: bounds", "# metrics: nDCG@3 ndcg_cut_5", "# definition ndcg_cut_5 = trec_eval ndcg_cut: nDCG@k with linear gain", "[0.8175, 0.8175]"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestExitCodes(t *testing.T) {
	dir := exampleDir(t)
	q := filepath.Join(dir, "qrels.jsonl")
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		err   string
	}{
		{"ok from stdin", `{"query":"refund","items":["policy"]}` + "\n" + `{"query":"limits","items":[]}` + "\n" + `{"query":"restore","items":[]}`,
			[]string{"eval", "-j", q, "-"}, 0, ""},
		{"flags after files", "", []string{"eval", filepath.Join(dir, "A.jsonl"), "-j", q, "-k", "3"}, 0, ""},
		{"no such file", "", []string{"eval", "-j", q, filepath.Join(dir, "nope")}, 2, "no such file"},
		{"bad metric", "", []string{"eval", "-j", q, "-m", "nDCG@0", filepath.Join(dir, "A.jsonl")}, 2, "not a positive integer"},
		{"bad k", "", []string{"eval", "-j", q, "-k", "0", filepath.Join(dir, "A.jsonl")}, 2, "positive integer"},
		{"missing query", `{"query":"refund","items":["policy"]}`, []string{"eval", "-j", q, "-"}, 2, `2 queries judged in`},
		{"unjudged item", `{"query":"refund","items":["policy","mystery"]}` + "\n" + `{"query":"limits","items":[]}` + "\n" + `{"query":"restore","items":[]}`,
			[]string{"eval", "-j", q, "-"}, 2, `-:1: query "refund", item "mystery": returned at rank 2 but has no judgment`},
		{"unknown flag", "", []string{"eval", "--nope"}, 2, "unknown flag"},
		{"two runs one name", "", []string{"eval", "-j", q, filepath.Join(dir, "A.jsonl"), filepath.Join(dir, "A.jsonl")}, 2, "two systems are named"},
		{"min grade off scale", "", []string{"eval", "-j", q, "--min-grade", "5", filepath.Join(dir, "A.jsonl")}, 2, "--min-grade 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := ragstat(t, tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.err) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tc.code, errs, tc.err)
			}
		})
	}
}

func TestMetricsCommand(t *testing.T) {
	out, _, code := ragstat(t, "", "metrics")
	if code != 0 || !strings.Contains(out, "nDCG") || !strings.Contains(out, "log2(i+1)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// ragstat's names first; each borrowed name says its tool and how it differs.
	for _, w := range []string{"trec_eval names", "ranx names",
		"ndcg_cut         @k required  mean      -          vs ragstat: nDCG@k with linear gain (g) whatever --gain says",
		"ndcg [--like ranx]", "num_ret          none         sum"} {
		if !strings.Contains(out, w) {
			t.Errorf("metrics lacks %q", w)
		}
	}
	if strings.Index(out, "ragstat's own names") > strings.Index(out, "trec_eval names") {
		t.Error("ragstat's own names are not listed first")
	}
}

// TestFirstContact: a bare ragstat prints the help; --version, -v and the
// version command print the version.
func TestFirstContact(t *testing.T) {
	out, errs, code := ragstat(t, "")
	if code != 0 || !strings.HasPrefix(out, "Usage: ragstat <command>") || !strings.Contains(out, "eval") || errs != "" {
		t.Errorf("bare ragstat: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		out, errs, code := ragstat(t, "", args...)
		if code != 0 || out != "ragstat "+Version+"\n" || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestHelpStatesDefaults: every flag with a default states it in the help,
// either kong's --flag=DEFAULT or, where a placeholder hides it, in words;
// -k says nothing of stages in eval.
func TestHelpStatesDefaults(t *testing.T) {
	var c cli
	parser, err := kong.New(&c, kong.Name("ragstat"), kong.Vars{"version": "ragstat " + Version})
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			stated := strings.Contains(f.Help, "default "+f.Default) || strings.Contains(f.Help, "default: "+f.Default) ||
				f.Default == "-" && strings.Contains(f.Help, "default: standard output")
			if f.HasDefault && f.Default != "" && f.PlaceHolder != "" && !stated {
				t.Errorf("%s --%s: the help %q does not state the default %q", n.Path(), f.Name, f.Help, f.Default)
			}
			if f.Name == "k" && n.Name == "eval" && strings.Contains(f.Help, "stage") {
				t.Errorf("eval -k: the help %q mentions stages", f.Help)
			}
		}
		for _, child := range n.Children {
			walk(child)
		}
	}
	walk(parser.Model.Node)
}
