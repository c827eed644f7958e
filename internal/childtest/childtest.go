// Package childtest runs a server in a child process for crash tests: the
// test binary re-executes itself running one test, which serves until it
// is killed.
package childtest

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// Child is a running child process.
type Child struct {
	Cmd    *exec.Cmd
	Match  []string // the submatches of the line that said it was ready
	Before []string // the lines it printed before that one
}

// Start runs the test binary again with only the test named test and the
// environment variable env=value, and waits up to 30 s for a line of its
// standard output that matches ready.
func Start(t *testing.T, test, env, value string, ready *regexp.Regexp) *Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+value)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan *Child, 1)
	go func() {
		c := &Child{Cmd: cmd}
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := ready.FindStringSubmatch(sc.Text()); m != nil && c.Match == nil {
				c.Match = m
				found <- c
				continue
			}
			if c.Match == nil {
				c.Before = append(c.Before, sc.Text())
			}
		}
		close(found)
	}()
	select {
	case c, ok := <-found:
		if !ok {
			cmd.Wait()
			t.Fatalf("the %s process exited before it was ready", test)
		}
		return c
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the %s process was not ready in 30 s", test)
	}
	return nil
}

// Kill kills the child with SIGKILL and waits for it.
func (c *Child) Kill(t *testing.T) {
	t.Helper()
	if err := c.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.Cmd.Wait()
}
