package input

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "run.txt")
	packed := filepath.Join(dir, "run.trec.gz")
	os.WriteFile(plain, []byte("q Q0 d 1 1 t\n"), 0o644)
	os.WriteFile(packed, gz(t, "q Q0 d 1 1 t\n"), 0o644)
	for _, p := range []string{plain, packed} {
		f, err := Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		data, err := f.ReadAll()
		if err != nil || string(data) != "q Q0 d 1 1 t\n" {
			t.Errorf("%s: %q %v", p, data, err)
		}
		if f.Gzip() != strings.HasSuffix(p, ".gz") || f.Base() != "run" {
			t.Errorf("%s: gzip %v base %q", p, f.Gzip(), f.Base())
		}
	}
	f, err := Open("-", strings.NewReader("from stdin\n"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // standard input can be read twice
		if data, _ := f.ReadAll(); string(data) != "from stdin\n" {
			t.Fatalf("stdin: %q", data)
		}
	}
	f.Close()
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	badgz := filepath.Join(dir, "bad.gz")
	os.WriteFile(badgz, []byte{0x1f, 0x8b, 0x08, 0x00, 0x01}, 0o644)
	emptygz := filepath.Join(dir, "empty.gz")
	os.WriteFile(emptygz, gz(t, ""), 0o644)
	for path, want := range map[string]string{
		empty:                         "file is empty",
		badgz:                         "invalid gzip data",
		emptygz:                       "empty after decompression",
		filepath.Join(dir, "missing"): "no such file",
	} {
		if _, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), path+": ") || strings.Count(err.Error(), path) != 1 {
			t.Errorf("%s: error %v, want %q", path, err, want)
		}
	}
	if _, err := Open("-", strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "-: file is empty") {
		t.Errorf("empty stdin: %v", err)
	}
}

func TestWatch(t *testing.T) {
	f := FromBytes("x", []byte("0123456789"))
	seen := 0
	f.Watch(func(n int) { seen += n })
	r, _ := f.Open()
	io.Copy(io.Discard, r)
	r.Close()
	if seen != 10 || f.Size() != 10 {
		t.Fatalf("seen %d, size %d", seen, f.Size())
	}
}

func TestFirstLine(t *testing.T) {
	if got := string(FirstLine([]byte("\n  \n  {\"a\":1}\nnext"))); got != `{"a":1}` {
		t.Fatalf("got %q", got)
	}
}

// TestNamedPipe reads a FIFO, which can be read only once, as a file.
func TestNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write([]byte("q Q0 d 1 1 t\n"))
			w.Close()
		}
	}()
	f, err := Open(fifo, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for range 2 {
		if data, _ := f.ReadAll(); string(data) != "q Q0 d 1 1 t\n" {
			t.Fatalf("got %q", data)
		}
	}
}

// TestCopyLeavesNoFile checks the copy of standard input is unlinked at
// once, so nothing is left behind even when Close is never called.
func TestCopyLeavesNoFile(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	f, err := Open("-", strings.NewReader("q 0 d 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), "ragstat-stdin-*"))
	if len(left) != 0 {
		t.Fatalf("left %v", left)
	}
	if sum, err := f.SHA256(); err != nil || f.Size() != 8 || len(sum) != 64 {
		t.Fatalf("size %d, sha256 %q, %v", f.Size(), sum, err)
	}
}

func TestFromReader(t *testing.T) {
	f, err := FromReader("qrels", bytes.NewReader(gz(t, "q 0 d 1\n")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for range 2 { // read twice: the reader is copied once
		if data, err := f.ReadAll(); err != nil || string(data) != "q 0 d 1\n" || !f.Gzip() || f.Name != "qrels" {
			t.Fatalf("read %q, %v, gzip %v, name %q", data, err, f.Gzip(), f.Name)
		}
	}
	if _, err := FromReader("empty", strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "empty: file is empty") {
		t.Errorf("an empty reader: %v", err)
	}
}
