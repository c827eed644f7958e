package traceimport

import (
	"os"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
)

// fuzzImport checks that any input gives traces or an error in bounded
// time, never a panic, and that every trace written passes trace.Check.
func fuzzImport(f *testing.F, format Format, seeds ...string) {
	for _, s := range seeds {
		data, err := os.ReadFile("testdata/" + s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		for _, m := range []Mapping{{}, {Strict: true, CloseAfter: 1, ItemID: "metadata.id"}} {
			Import(format, []*input.File{input.FromBytes("f", data)}, m, func(tr *trace.Trace) error {
				if err := tr.Check(); err != nil {
					t.Fatalf("a trace that fails Check was written: %v", err)
				}
				return nil
			})
		}
		Detect(input.FromBytes("f", data))
	})
}

func FuzzOTLP(f *testing.F) {
	fuzzImport(f, OTLP, "openinference.otlp.jsonl", "genai.otlp.json")
}

func FuzzLangSmith(f *testing.F) { fuzzImport(f, LangSmith, "langsmith.jsonl") }

func FuzzLangfuse(f *testing.F) { fuzzImport(f, Langfuse, "langfuse.json") }
