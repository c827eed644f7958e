package systems

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/trace"
)

func TestSplit(t *testing.T) {
	tests := []struct{ arg, name, path string }{
		{"run.txt", "", "run.txt"},
		{"bm25=run.txt", "bm25", "run.txt"},
		{"dir/a=b.txt", "", "dir/a=b.txt"},
		{"=run.txt", "", "=run.txt"},
		{"-", "", "-"},
		{"x=-", "x", "-"},
	}
	var args, paths []string
	for _, tt := range tests {
		if name, path := Split(tt.arg); name != tt.name || path != tt.path {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", tt.arg, name, path, tt.name, tt.path)
		}
		args, paths = append(args, tt.arg), append(paths, tt.path)
	}
	if got := Paths(args); !slices.Equal(got, paths) {
		t.Errorf("Paths = %q, want %q", got, paths)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	run := sharedtest.WriteFile(t, dir, "bm25.run", "q Q0 a 1 1.0 t\n")
	traces := sharedtest.WriteFile(t, dir, "t.jsonl", `{"query":"q","system":"s","stages":[{"name":"r","items":[{"id":"a"}]}]}`+"\n")
	saved := sharedtest.WriteFile(t, dir, "r.json", `{"tool": "ragstat", "version": "x"}`)
	other := sharedtest.WriteFile(t, dir, "o.txt", "OTHER FORMAT\n")

	ins, err := Open([]string{run, "dense=" + run, traces, saved}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer Close(ins)
	var got []string
	for _, in := range ins {
		got = append(got, in.System()+":"+string(in.Kind))
	}
	if want := "bm25:run dense:run t:traces r:result"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
	n := 0
	if err := ins[2].Scan(func(*trace.Trace) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("Scan: %d traces, %v", n, err)
	}
	if err := ins[0].Scan(func(*trace.Trace) error { return nil }); err == nil {
		t.Error("a run scanned as traces")
	}

	errs := []struct {
		args []string
		opt  Options
		want string
	}{
		{[]string{run, run}, Options{}, `two systems are named "bm25"`},
		{[]string{"x=" + run, "x=" + saved, "x=" + traces}, Options{}, ""}, // only runs' names are known before reading
		{[]string{traces}, Options{Accept: []Kind{Run}}, "holds traces (jsonl); runs expected"},
		{[]string{saved}, Options{Accept: []Kind{Run, Traces}}, "holds a saved ragstat result; runs or traces expected"},
		{[]string{filepath.Join(dir, "nope")}, Options{}, "nope"},
	}
	for _, tt := range errs {
		ins, err := Open(tt.args, nil, tt.opt)
		Close(ins)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Open(%v) = %v, want %q", tt.args, err, tt.want)
		}
	}

	// A trace format plugs in beside the built-in one.
	custom := TraceReader{
		Detect: func(f *input.File) (string, error) {
			if head, err := f.Head(5); err != nil || string(head) != "OTHER" {
				return "", err
			}
			return "other", nil
		},
		Scan: func(f *input.File, format string, fn func(*trace.Trace) error) error {
			return fn(&trace.Trace{Query: "q", System: format})
		}}
	ins, err = Open([]string{other, traces}, nil, Options{Traces: []TraceReader{custom, JSONL}})
	if err != nil {
		t.Fatal(err)
	}
	defer Close(ins)
	if ins[0].Kind != Traces || ins[0].Format != "other" || ins[1].Format != "jsonl" {
		t.Errorf("kinds %s/%v %s/%v", ins[0].Kind, ins[0].Format, ins[1].Kind, ins[1].Format)
	}
	if err := ins[0].Scan(func(tr *trace.Trace) error {
		if tr.System != "other" {
			t.Errorf("scanned %+v", tr)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
}

func TestNames(t *testing.T) {
	var n Names
	if err := n.Claim("a", "x.run"); err != nil {
		t.Fatal(err)
	}
	if err := n.Claim("b", "x.run"); err != nil {
		t.Fatal(err)
	}
	if err := n.Claim("a", "y.run"); err == nil || !strings.Contains(err.Error(), "x.run and y.run") {
		t.Errorf("a second a: %v", err)
	}
}

// Scan reads every input's traces and reports the problems of all files.
func TestScan(t *testing.T) {
	dir := t.TempDir()
	good := sharedtest.WriteFile(t, dir, "a.jsonl", `{"query":"q","system":"s","stages":[{"name":"r","items":[{"id":"a"}]}]}`+"\n")
	bad := sharedtest.WriteFile(t, dir, "b.jsonl", `{"query":"q","system":"s","stages":[{"name":"r","items":[{"id":"a"}]}]}`+"\n"+`{"query":1}`+"\n")
	worse := sharedtest.WriteFile(t, dir, "c.jsonl", `{"query":"q","system":"s","stages":[{"name":"r","items":[{"id":"a"}]}]}`+"\n"+`{"query":2}`+"\n")
	ins, err := Open([]string{good, bad, worse}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer Close(ins)
	var mu sync.Mutex
	n := 0
	err = Scan(ins, func(*trace.Trace) error { mu.Lock(); n++; mu.Unlock(); return nil })
	if err == nil || !strings.Contains(err.Error(), "b.jsonl:2") || !strings.Contains(err.Error(), "c.jsonl:2") || n < 1 {
		t.Errorf("%d traces, %v; want the problems of b.jsonl and c.jsonl", n, err)
	}
}

func TestFiles(t *testing.T) {
	a, b := input.FromBytes("a", nil), input.FromBytes("b", nil)
	for _, tt := range []struct {
		ins  []*Input
		want []*input.File
	}{
		{nil, []*input.File{}},
		{[]*Input{{File: a}, {File: b}}, []*input.File{a, b}},
	} {
		if got := Files(tt.ins); !slices.Equal(got, tt.want) {
			t.Errorf("Files = %v, want %v", got, tt.want)
		}
	}
}
