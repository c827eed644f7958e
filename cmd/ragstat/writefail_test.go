package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullWriter fails every write, as standard output on a full disk or
// /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestStdoutWriteFails: a command whose results cannot be written exits 1
// with the reason, not 0.
func TestStdoutWriteFails(t *testing.T) {
	text := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(text, []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}, {"tokens", text}, {"tokens", text, text}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var errb bytes.Buffer
			code := run(args, &env{stdin: strings.NewReader(""), stdout: fullWriter{}, stderr: &errb})
			if code != exitInternal || !strings.Contains(errb.String(), syscall.ENOSPC.Error()) {
				t.Errorf("exit %d (want %d), stderr %q (want the write error)", code, exitInternal, errb.String())
			}
		})
	}
}
