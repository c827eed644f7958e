package treceval

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

// conformanceCase is one line of a cmd.txt: an expected output, the exit
// status and the trec_eval command that made it.
type conformanceCase struct {
	dir, output string
	status      int
	args        []string
}

// readCases reads a cmd.txt, leaving out what this implementation does not
// reproduce: trec_eval 9 outputs, preference formats (-R) and z-scores (-Z).
func readCases(t *testing.T, path string) []conformanceCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []conformanceCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("%s: bad line %q", path, line)
		}
		status, err := strconv.Atoi(parts[1])
		if err != nil {
			t.Fatalf("%s: bad status in %q", path, line)
		}
		args := strings.Fields(parts[2])[1:]
		if strings.HasSuffix(parts[0], ".v9.txt") || strings.Contains(parts[2], " -R") || strings.Contains(parts[2], " -Z") {
			continue
		}
		cases = append(cases, conformanceCase{filepath.Dir(path), parts[0], status, args})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestConformance reproduces every trec_eval output of the conformance data
// byte for byte (rbp and rbp_resid rows aside: trec_eval computes them from
// uninitialised memory), with trec_eval's exit status.
func TestConformance(t *testing.T) {
	root := sharedtest.Dir(t, "conformance")
	paths, err := filepath.Glob(filepath.Join(root, "*", "cmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(root, "*", "*", "cmd.txt"))
	paths = append(paths, more...)
	runCases(t, root, paths)
}

// TestGolden reproduces the outputs in testdata: trec_eval's answers on
// inputs made to reach its odd corners (relevance levels below 0 or above
// every grade, queries whose grades are all negative, -M 0, -J, -D, gains
// for unjudged documents).
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "cmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	runCases(t, "testdata", paths)
}

// runCases checks every command of the given cmd.txt files.
func runCases(t *testing.T, root string, paths []string) {
	if len(paths) == 0 {
		t.Fatal("no cmd.txt found")
	}
	n := 0
	for _, path := range paths {
		for _, c := range readCases(t, path) {
			n++
			rel, _ := filepath.Rel(root, filepath.Join(c.dir, c.output))
			t.Run(rel+" "+strings.Join(c.args, " "), func(t *testing.T) {
				t.Parallel()
				c.check(t)
			})
		}
	}
	t.Logf("%d commands", n)
}

func (c conformanceCase) check(t *testing.T) {
	args := append([]string(nil), c.args...)
	for i := len(args) - 2; i < len(args); i++ {
		args[i] = filepath.Join(c.dir, args[i])
	}
	var stdout, stderr bytes.Buffer
	status := Main(args, strings.NewReader(""), &stdout, &stderr)
	if status != c.status {
		t.Errorf("exit status %d, want %d; stderr:\n%s", status, c.status, stderr.String())
	}
	if status != 0 && stderr.Len() == 0 {
		t.Errorf("failed without a message on stderr")
	}
	want, err := os.ReadFile(filepath.Join(c.dir, c.output))
	if err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(dropRBP(stdout.String()), dropRBP(string(want))); d != "" {
		t.Errorf("stdout differs from %s:\n%s", c.output, d)
	}
}

// dropRBP removes the rbp and rbp_resid rows.
func dropRBP(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		name, _, _ := strings.Cut(line, "\t")
		if name = strings.TrimSpace(name); name != "rbp" && name != "rbp_resid" {
			b.WriteString(line)
		}
	}
	return b.String()
}

// firstDiff shows the first lines where got and want differ, or "".
func firstDiff(got, want string) string {
	if got == want {
		return ""
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(g), len(w)) && shown < 5; i++ {
		gl, wl := lineAt(g, i), lineAt(w, i)
		if gl != wl {
			fmt.Fprintf(&b, "line %d:\n  got  %q\n  want %q\n", i+1, gl, wl)
			shown++
		}
	}
	return b.String()
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<missing>"
}
