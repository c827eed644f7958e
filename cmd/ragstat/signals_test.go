package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/ragstat/ragstat/internal/childtest"
	"github.com/ragstat/ragstat/internal/outfile"
)

const signalChildEnv = "RAGSTAT_SIGNAL_CHILD"

// TestSignalChild is the child of TestSignalRemovesTemporary: with the
// handler main installs, it writes the output named by the environment
// and stops halfway, until a signal ends it.
func TestSignalChild(t *testing.T) {
	dest := os.Getenv(signalChildEnv)
	if dest == "" {
		t.Skip("run by TestSignalRemovesTemporary")
	}
	removeOnSignal()
	s, err := outfile.Start(outfile.Options{}, nil, outfile.Input{Flag: "--out", Path: dest})
	if err != nil {
		t.Fatal(err)
	}
	s.Write(dest, func(w io.Writer) error {
		fmt.Println("writing")
		select {}
	})
}

// TestSignalRemovesTemporary: SIGINT, SIGTERM and SIGHUP end a command
// writing its output by that signal, its temporary file removed; after a
// SIGKILL, which nothing can catch, the next write of the same destination
// removes the file left.
func TestSignalRemovesTemporary(t *testing.T) {
	temporaries := func(dest string) []string {
		m, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".out.json.*.tmp"))
		return m
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "out.json")
			c := childtest.Start(t, "TestSignalChild", signalChildEnv, dest, regexp.MustCompile(`^writing$`))
			if n := len(temporaries(dest)); n != 1 {
				c.Kill(t)
				t.Fatalf("%d temporary files while writing, want 1", n)
			}
			if err := c.Cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			c.Cmd.Wait()
			ws, _ := c.Cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("the child ended with %v, want the signal %v", c.Cmd.ProcessState, sig)
			}
			left := temporaries(dest)
			if sig != syscall.SIGKILL {
				if len(left) != 0 {
					t.Errorf("left %v", left)
				}
				return
			}
			if len(left) != 1 {
				t.Fatalf("after SIGKILL: %v, want the one temporary file", left)
			}
			s, err := outfile.Start(outfile.Options{}, nil, outfile.Input{Flag: "--out", Path: dest})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Finish(dest, func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
				t.Fatal(err)
			}
			if left := temporaries(dest); len(left) != 0 {
				t.Errorf("the next write left %v", left)
			}
		})
	}
}
