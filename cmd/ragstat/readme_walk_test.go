package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/internal/longtest"
)

// readmeScript is the README's code lines that run on the example files
// (ex/), continuation lines joined and comments dropped, as one shell
// script in their order; the demo's generator listens on addr, in the
// background until the script ends.
func readmeScript(t *testing.T, addr string) string {
	t.Helper()
	script := []string{"set -e"}
	for _, line := range readmeCode(t) {
		line = strings.ReplaceAll(line, "127.0.0.1:8089", addr)
		onExample := strings.Contains(line, " ex/") || strings.HasSuffix(line, "--write ex") || strings.Contains(line, "--generator "+addr)
		if !strings.HasPrefix(line, "ragstat ") || !onExample {
			continue
		}
		script = append(script, line)
		if strings.HasSuffix(line, "&") {
			// Stopped when the script ends, however it ends; meanwhile it
			// starts listening.
			script = append(script, `gen=$!; trap 'kill $gen' EXIT`, "sleep 2")
		}
	}
	return strings.Join(script, "\n")
}

// TestReadmeWalk walks the README as a new user does from a clone: the
// "Get ragstat" step (go build -o), then every command on the example
// files through a real shell (globs, pipes, redirections, the generator in
// the background), each of which must succeed; then the demo's "Try
// next" lines on those files.
func TestReadmeWalk(t *testing.T) {
	longtest.Skip(t)
	bin := t.TempDir()
	// The README's own build line, run from the root of the clone, its
	// binary written to bin instead of the clone.
	build := readmeGoLine(t, "go build -o ragstat ")
	build[3] = filepath.Join(bin, "ragstat")
	cmd := exec.Command(build[0], build[1:]...)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(build, " "), err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	script := readmeScript(t, addr)
	// The demo's guidance, followed by someone who ran only the demo: in a
	// folder of its own.
	script += "\nmkdir next && cd next"
	for _, l := range demo.Next {
		if l, _, _ = strings.Cut(l, " #"); strings.Contains(l, " ex/") {
			script += "\n" + strings.TrimSpace(l)
		}
	}
	if n := strings.Count(script, "\nragstat "); n < 10 {
		t.Fatalf("found %d commands on the example files:\n%s", n, script)
	}
	sh := exec.Command("sh", "-c", script)
	sh.Dir = t.TempDir()
	sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "OPENAI_API_KEY=")
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s\nscript:\n%s", err, out, script)
	}
}
