package trace_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
)

// An application records what its pipeline did for each query; ragstat
// stages then evaluates the file.
func ExampleRecorder() {
	var out bytes.Buffer
	rec, _ := trace.NewRecorder(&out, "hybrid-v2", map[string]string{"reranker": "cross-encoder"})
	err := rec.Query("refund-clearance").
		Scope([]string{"tenant-a"}, "2026-06-01").
		Stage("candidates", trace.Scored("policy#2", 12.1), trace.Scored("exceptions#4", 9.5)).
		Stage("reranked", trace.Scored("policy#2", 0.93)).
		Context(2000, 300, "Answer from the context.", "Can I return a clearance item?",
			"[policy#2] Returns within 30 days.", trace.Packed("policy#2", "Returns within 30 days.")).
		Answer("Yes, within 30 days.", []string{"policy#2"}, false).
		Latency("candidates", 12.5).
		Record()
	fmt.Println(err)
	fmt.Print(out.String())
	// Output:
	// <nil>
	// {"query":"refund-clearance","system":"hybrid-v2","scopes":["tenant-a"],"as_of":"2026-06-01","stages":[{"name":"candidates","items":[{"id":"policy#2","score":12.1},{"id":"exceptions#4","score":9.5}]},{"name":"reranked","items":[{"id":"policy#2","score":0.93}]},{"name":"context","items":[{"id":"policy#2","text":"Returns within 30 days."}],"budget_tokens":2000,"answer_reserve_tokens":300,"instructions":"Answer from the context.","request":"Can I return a clearance item?","text":"[policy#2] Returns within 30 days."}],"answer":{"text":"Yes, within 30 days.","citations":["policy#2"],"abstained":false},"latency_ms":{"candidates":12.5},"config":{"reranker":"cross-encoder"}}
}

// TestRecorderConcurrent records from many goroutines and reads the file
// back: every line whole, every query once.
func TestRecorderConcurrent(t *testing.T) {
	var out bytes.Buffer
	rec, err := trace.NewRecorder(&out, "s", nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			b := rec.Query(fmt.Sprintf("q%d", i)).Stage("candidates", trace.Scored("a", 1), trace.Scored("b", 0.5))
			if err := b.Record(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	ts, err := trace.Read(input.FromBytes("traces.jsonl", out.Bytes()))
	if err != nil || len(ts) != 64 {
		t.Fatalf("read back %d traces: %v", len(ts), err)
	}
}

func TestRecordRejectsBadTraces(t *testing.T) {
	rec, _ := trace.NewRecorder(&bytes.Buffer{}, "s", nil)
	if err := rec.Query("q").Stage("candidates", trace.Scored("a", 1), trace.Scored("a", 2)).Record(); err == nil {
		t.Fatal("recorded a stage that returns an item twice")
	}
	if err := rec.Query("q").Record(); err == nil {
		t.Fatal("recorded a trace with no stage")
	}
}

func TestReadErrors(t *testing.T) {
	for content, want := range map[string]string{
		`{"query":"q","system":"s","stages":[{"name":"c","items":[{"id":""}]}]}`:                                                                 "empty id",
		`{"query":"q","system":"s","stages":[{"name":"c","items":[]},{"name":"c","items":[]}]}`:                                                  `stage "c" repeated`,
		`{"query":"q","system":"s","stages":[],"extra":1}`:                                                                                       `unknown field "extra"`,
		`{"query":"q","system":"s","stages":[{"name":"c","items":[]}]}` + "\n" + `{"query":"q","system":"s","stages":[{"name":"c","items":[]}]}`: "second trace for this query (also line 1)",
		`{"query":"q","system":"s","as_of":"June","stages":[{"name":"c","items":[]}]}`:                                                           "neither YYYY-MM-DD nor RFC 3339",
	} {
		_, err := trace.Read(input.FromBytes("t.jsonl", []byte(content)))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(want)) {
			t.Errorf("%s: error %v, want %q", content, err, want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(`{"query":"q","system":"s","stages":[{"name":"context","items":[{"id":"a","text":"x","scope":"t"}],"budget_tokens":10}],"answer":{"text":"","abstained":true}}`)
	f.Fuzz(func(t *testing.T, src string) {
		ts, err := trace.Read(input.FromBytes("t.jsonl", []byte(src)))
		if err != nil {
			return
		}
		for _, tr := range ts {
			if tr.Check() != nil {
				t.Fatal("accepted a trace that fails Check")
			}
		}
	})
}

func TestIs(t *testing.T) {
	for content, want := range map[string]bool{
		"\n" + `{"query":"q","system":"s","stages":[]}`: true,
		`{"query":"q","items":["a"]}`:                   false,
		"q Q0 d 1 1 t\n":                                false,
	} {
		if got, err := trace.Is(input.FromBytes("f", []byte(content))); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", content, got, err, want)
		}
	}
}
