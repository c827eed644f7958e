package input

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
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

// TestNamedPipe reads a FIFO, which can be read only once, as a file.
func TestNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("skipped: %s needs FIFOs: %v", t.Name(), err)
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

// TestKeepSHA256 checks that a whole read leaves the digest of the bytes
// as stored, so SHA256 reads nothing more, while a partial read does not.
func TestKeepSHA256(t *testing.T) {
	for _, data := range [][]byte{[]byte("0123456789\n"), gz(t, strings.Repeat("line\n", 1000))} {
		want := fmt.Sprintf("%x", sha256.Sum256(data))
		f := FromBytes("x", data)
		f.KeepSHA256()
		read := 0
		f.Watch(func(n int) { read += n })
		if _, err := f.Head(4); err != nil {
			t.Fatal(err)
		}
		r, _ := f.Open()
		io.Copy(io.Discard, r)
		r.Close()
		before := read
		if sum, err := f.SHA256(); err != nil || sum != want || read != before {
			t.Errorf("after a whole read: %s, %v, %d more bytes read; want %s and none", sum, err, read-before, want)
		}
		g := FromBytes("y", data)
		if _, err := g.Head(2); err != nil {
			t.Fatal(err)
		}
		if sum, err := g.SHA256(); err != nil || sum != want {
			t.Errorf("after a partial read: %s, %v; want %s", sum, err, want)
		}
	}
}

// TestCopyLimit: standard input is copied up to the Config's CopyLimit
// bytes, then refused with a message that names the limit; a device is
// refused at once, also as standard input; the default limit is a part of
// the temporary directory's free space.
func TestCopyLimit(t *testing.T) {
	limited := func(r io.Reader) io.Reader { return WithConfig(r, Config{CopyLimit: 1 << 10}) }
	if _, err := Open(Stdin, limited(strings.NewReader(strings.Repeat("q Q0 d 1 1 t\n", 100)))); err == nil || !strings.Contains(err.Error(), "more than 1 KiB") {
		t.Errorf("over the limit: %v", err)
	}
	f, err := Open(Stdin, limited(strings.NewReader(strings.Repeat("x", 1<<10))))
	if err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	f.Close()
	if _, err := Open("/dev/zero", nil); err == nil || !strings.Contains(err.Error(), "a device, not a file") {
		t.Errorf("/dev/zero: %v", err)
	}
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	if _, err := Open(Stdin, limited(zero)); err == nil || !strings.Contains(err.Error(), "standard input is a device") {
		t.Errorf("/dev/zero as standard input: %v", err)
	}
	if free, ok := freeSpace(os.TempDir()); ok {
		if got := defaultCopyLimit(); got <= 0 || got > free {
			t.Errorf("DefaultCopyLimit = %d with %d bytes free", got, free)
		}
	}
}

// TestReadAllLimit: a whole-file read stops past the Config's MaxRead
// bytes of decompressed content, naming the limit.
func TestReadAllLimit(t *testing.T) {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(make([]byte, 1<<20))
	w.Close()
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"plain", make([]byte, 4<<10), "more than 1 KiB: a file read whole"},
		{"gzip", z.Bytes(), "more than 1 KiB once decompressed"},
	} {
		f, err := Open(Stdin, WithConfig(bytes.NewReader(c.data), Config{MaxRead: 1 << 10}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.ReadAll(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		f.Close()
	}
}

// TestByteOrderMark: a UTF-8 byte-order mark at the start of a file, plain
// or compressed, is not part of its content.
func TestByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	plain, packed := filepath.Join(dir, "bom.txt"), filepath.Join(dir, "bom.gz")
	os.WriteFile(plain, []byte("\ufeffq 0 d 1\n"), 0o644)
	os.WriteFile(packed, gz(t, "\ufeffq 0 d 1\n"), 0o644)
	for _, p := range []string{plain, packed} {
		f, err := Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		head, _ := f.Head(2)
		data, err := f.ReadAll()
		if err != nil || string(data) != "q 0 d 1\n" || string(head) != "q " {
			t.Errorf("%s: %q, head %q, %v", p, data, head, err)
		}
	}
	f := FromBytes("short", []byte("\xef\xbb"))
	if data, err := f.ReadAll(); err != nil || string(data) != "\xef\xbb" {
		t.Errorf("two bytes of a mark: %q %v", data, err)
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
