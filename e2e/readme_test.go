package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// codeBlocks returns the code blocks (lines indented four spaces) of a
// Markdown file, each as its lines, the first after the line that starts
// with from ("" for the whole file).
func codeBlocks(t *testing.T, path, from string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if from != "" {
		i := strings.Index(text, "\n"+from)
		if i < 0 {
			t.Fatalf("%s has no line %q", path, from)
		}
		text = text[i:]
	}
	var blocks [][]string
	var cur []string
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\n")
		if code, ok := strings.CutPrefix(line, "    "); ok {
			cur = append(cur, code)
			continue
		}
		if cur != nil {
			blocks = append(blocks, cur)
			cur = nil
		}
	}
	if cur != nil {
		blocks = append(blocks, cur)
	}
	return blocks
}

// npmLine is a block's `npm ci --prefix examples/NAME` line.
var npmLine = regexp.MustCompile(`^npm ci --prefix examples/([a-z0-9-]+)`)

// walkBlock runs a README's block of commands as someone who types them
// from the root of the clone: through bash (job control's kill %1, the
// comments, the continuation lines), in a folder of its own holding
// examples/ (the apps with their npm packages: the npm ci lines are the
// ones installed for the tests, see nodeProject), with the built ragstat
// first on PATH. The fixed ports are replaced by free ones, and after a
// command sent to the background the script waits for its port, as a
// person typing does without knowing. It returns what the commands wrote.
func walkBlock(t *testing.T, bin string, block []string) string {
	t.Helper()
	dir := t.TempDir()
	examples := filepath.Join(dir, "examples")
	if err := os.Mkdir(examples, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	apps := map[string]string{}
	for _, line := range block {
		if m := npmLine.FindStringSubmatch(line); m != nil {
			apps[m[1]] = nodeProject(t, filepath.Join("..", "examples"), m[1])
		}
	}
	for _, e := range entries {
		target := filepath.Join(root, e.Name())
		if app, ok := apps[e.Name()]; ok {
			target = app
		} else if e.IsDir() {
			continue // an app the block does not run
		}
		if err := os.Symlink(target, filepath.Join(examples, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	http, grpc := freeAddr(t), freeAddr(t)
	// A command that fails ends the script; the background jobs end with it.
	script := []string{"set -eo pipefail", `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT`}
	for _, line := range block {
		if npmLine.MatchString(line) {
			script = append(script, ": "+line) // installed above
			continue
		}
		line = strings.ReplaceAll(line, "127.0.0.1:4318", http)
		line = strings.ReplaceAll(line, "127.0.0.1:4317", grpc)
		line = strings.Replace(line, "ragstat collect ", "ragstat collect --grpc-addr "+grpc+" ", 1)
		script = append(script, line)
		if code, _, _ := strings.Cut(line, " #"); strings.HasSuffix(strings.TrimSpace(code), "&") {
			host, port, _ := net.SplitHostPort(http)
			script = append(script, fmt.Sprintf("for i in $(seq 100); do (exec 3<>/dev/tcp/%s/%s) 2>/dev/null && break; sleep 0.1; done", host, port))
		}
		if strings.HasPrefix(strings.TrimSpace(line), "kill %1") {
			script = append(script, "wait")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", strings.Join(script, "\n"))
	sh.Dir = dir
	sh.WaitDelay = 10 * time.Second // past it, pipes a stray child holds are closed
	sh.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "OTEL_NODE_RESOURCE_DETECTORS=env")
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s\nscript:\n%s", err, out, strings.Join(script, "\n"))
	}
	return string(out)
}

// freeAddr is a loopback address free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestExamplesReadme walks the README's "From your pipeline" commands
// and every block of examples/README.md as written: each installs (or
// finds installed) an app, runs it into ragstat collect, imports its spans
// and evaluates them, and its report must hold the hand-worked figures
// both READMEs state (the context stage's means over q1-q4, see
// examplesByHand; the defects of each query).
func TestExamplesReadme(t *testing.T) {
	bin := buildRagstat(t)
	blocks := codeBlocks(t, filepath.Join("..", "README.md"), "## From your pipeline")[:1]
	blocks = append(blocks, codeBlocks(t, filepath.Join("..", "examples", "README.md"), "")...)
	if len(blocks) != 4 {
		t.Fatalf("found %d blocks of commands, want the README's and three in examples/README.md", len(blocks))
	}
	contextRow := regexp.MustCompile(`(?m)^context +all MEAN +0\.5000 0\.7500 0\.6631 `)
	for i, block := range blocks {
		app := npmLine.FindStringSubmatch(block[0])
		if app == nil {
			t.Fatalf("a block that does not start by installing its app:\n%s", strings.Join(block, "\n"))
		}
		name := "examples/README.md " + app[1]
		if i == 0 {
			name = "README.md " + app[1]
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := walkBlock(t, bin, block)
			systems := strings.Count(out, "\n== system ")
			for _, want := range []string{
				"0 refused",
				fmt.Sprintf("context items: %d packed whole, %d truncated, 0 dropped in packing", 7*systems, 3*systems),
				"query q3: p7 (grade 2): not retrieved",
				"query q1: p2 (grade 1): cut between ",
				"query q2: p1 (grade 1): truncated (span lost)",
				"query q1: p4 (grade 1): out of scope (not acceptable evidence); last reached: context",
				"query q1: p3 (grade 1): stale (not in effect at as_of); last reached: context",
				"cited but not in the context: query q2, item p9",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("the walk's output lacks %q:\n%s", want, out)
				}
			}
			if n := len(contextRow.FindAllString(out, -1)); systems == 0 || n != systems {
				t.Errorf("%d of %d systems' context stage at R 0.5000, RR 0.7500, nDCG 0.6631:\n%s", n, systems, out)
			}
			if strings.Contains(strings.Join(block, "\n"), "--abstain-pattern") && !strings.Contains(out, "false abstention on answerable: 1 (rate 0.2500)") {
				t.Errorf("the false abstention of q4 is not reported:\n%s", out)
			}
		})
	}
}
