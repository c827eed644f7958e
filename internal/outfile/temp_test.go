package outfile

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// temporaries lists the temporary files of dest.
func temporaries(t *testing.T, dest string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRemoveTemporary: the temporary file of a Write in progress is
// removed, and no Write starts after.
func TestRemoveTemporary(t *testing.T) {
	defer func() { temps.closed = false }()
	dest := filepath.Join(t.TempDir(), "out.json")
	s, err := Start(Options{}, nil, Input{"--out", dest})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Write(dest, func(w io.Writer) error {
		if n := len(temporaries(t, dest)); n != 1 {
			t.Errorf("%d temporary files while writing, want 1", n)
		}
		RemoveTemporary()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tmp := temporaries(t, dest); len(tmp) != 0 {
		t.Errorf("left %v", tmp)
	}
	other := dest + ".2"
	if err := s.Claim("--other", other); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(other, write("x")); err == nil || !strings.Contains(err.Error(), "the process is ending") {
		t.Errorf("a Write after RemoveTemporary: %v", err)
	}
}

// TestStaleTemporaryRemoved: a temporary file of the destination whose
// process has ended is removed by the next Write; one of a live process,
// one of another destination and one without a process id are kept.
func TestStaleTemporaryRemoved(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "out[1].json") // a name with glob characters
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Skipf("skipped: %s needs a true command: %v", t.Name(), err)
	}
	deadPID := strconv.Itoa(ended.Process.Pid)
	stale := filepath.Join(dir, ".out[1].json."+deadPID+"-AAAAAAAAAA.tmp")
	keep := []string{
		filepath.Join(dir, ".out[1].json."+strconv.Itoa(os.Getppid())+"-BBBBBBBBBB.tmp"), // a live process
		filepath.Join(dir, ".out[1].json.CCCCCCCCCC.tmp"),                                // no process id
		filepath.Join(dir, ".other.json."+deadPID+"-DDDDDDDDDD.tmp"),                     // another destination
	}
	for _, p := range append([]string{stale}, keep...) {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Start(Options{}, nil, Input{"--out", dest})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(dest, write("done")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	if data, _ := os.ReadFile(dest); string(data) != "done" {
		t.Errorf("destination holds %q", data)
	}
}
