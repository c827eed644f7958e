package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
)

// readmeCode returns the README's code lines (indented four spaces),
// continuation lines joined, comments cut and spaces trimmed.
func readmeCode(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, "    ") {
			continue
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
		}
		line, _, _ = strings.Cut(strings.TrimSpace(line), " #")
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

// readmeCommands returns the ragstat command lines of the README's code
// blocks, continuation lines joined, one per command of a pipeline or an
// && list; lines with a "..." placeholder are left out.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, line := range readmeCode(t) {
		if strings.Contains(line, "...") {
			continue
		}
		for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == '&' }) {
			part, _, _ = strings.Cut(part, ">") // the shell's redirection, not an argument
			if part = strings.TrimSpace(part); strings.HasPrefix(part, "ragstat ") {
				out = append(out, part)
			}
		}
	}
	return out
}

// words splits a command line as a shell would here: spaces, single
// quotes, and globs expanded in the working directory.
func words(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	for i, part := range strings.Split(line, "'") {
		if i%2 == 1 {
			out = append(out, part)
			continue
		}
		for _, w := range strings.Fields(part) {
			if matches, _ := filepath.Glob(w); strings.ContainsAny(w, "*?[") && len(matches) > 0 {
				out = append(out, matches...)
			} else {
				out = append(out, w)
			}
		}
	}
	return out[1:] // without "ragstat"
}

// readmeGoLine returns the words of the README's code line that starts
// with prefix (a go command of "Get ragstat").
func readmeGoLine(t *testing.T, prefix string) []string {
	t.Helper()
	for _, line := range readmeCode(t) {
		if strings.HasPrefix(line, prefix) {
			return strings.Fields(line)
		}
	}
	t.Fatalf("the README has no line %q...", prefix)
	return nil
}

// TestReadmeGetRagstat: the README's "Get ragstat" lines build this
// command: go install and go build -o name its package, from the root of
// the clone (TestReadmeWalk, in the long suite, runs the build).
func TestReadmeGetRagstat(t *testing.T) {
	for _, prefix := range []string{"go install ", "go build -o ragstat "} {
		words := readmeGoLine(t, prefix)
		pkg := words[len(words)-1]
		if filepath.Clean(pkg) != filepath.Join("cmd", "ragstat") {
			t.Errorf("%s builds %s, not ./cmd/ragstat", strings.Join(words, " "), pkg)
		}
	}
}

// TestReadmeCommands keeps the README honest: every command it shows
// parses (commands, flags and their values exist), and those on the
// example files `ragstat demo --write ex` writes run and succeed.
func TestReadmeCommands(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 15 {
		t.Fatalf("found %d commands in the README; is the parser broken?", len(cmds))
	}
	t.Chdir(t.TempDir())
	// The README starts the demo's generator on 127.0.0.1:8089 before
	// ragstat intervene; the test serves it on a free loopback port instead
	// (a fixed port may be taken, and a dead endpoint only meets retries).
	generator := httptest.NewServer(demo.ReaderHandler())
	defer generator.Close()
	ran := 0
	for _, line := range cmds {
		args := words(t, line)
		for i, a := range args {
			if a == "http://127.0.0.1:8089/v1" {
				args[i] = generator.URL + "/v1"
			}
		}
		if strings.Contains(line, " ex/") || strings.HasSuffix(line, "--write ex") {
			ran++
			if _, errs, code := ragstat(t, "", args...); code != 0 {
				t.Errorf("%s: exit %d: %s", line, code, errs)
			}
			continue
		}
		parser, err := kong.New(&cli{}, kong.Name("ragstat"), kong.Exit(func(int) {}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.Parse(args); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	if ran < 4 {
		t.Errorf("ran %d commands on the example files, want at least 4", ran)
	}
}
