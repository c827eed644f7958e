package traceimport

import (
	"encoding/json"
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
	fuzzImport(f, OTLP, "openinference.otlp.jsonl", "genai.otlp.json", "llamaindex-openllmetry.otlp.jsonl", "langchain-langfuse.otlp.jsonl")
}

func FuzzLangSmith(f *testing.F) { fuzzImport(f, LangSmith, "langsmith.jsonl") }

func FuzzLangfuse(f *testing.F) { fuzzImport(f, Langfuse, "langfuse.json") }

// FuzzJSONPath: any path is read or refused, never a panic; a path read
// is written back as the same path, and selects from any JSON value.
func FuzzJSONPath(f *testing.F) {
	for _, s := range []string{"$", "$[*].node", "$.hits[*].doc", "$[0]", "$.a.b[12][*]", "$[", "$.", "a", "$[-1]", "$[01]"} {
		f.Add(s, `[{"node":{"id_":"a"}},{"hits":[1,{"doc":2}]}]`)
	}
	f.Fuzz(func(t *testing.T, path, doc string) {
		p, err := parsePath(path)
		if err != nil {
			return
		}
		q, err := parsePath(p.String())
		if err != nil || q.String() != p.String() {
			t.Fatalf("%q written as %q, read back as %v, %v", path, p.String(), q, err)
		}
		var v any
		if json.Unmarshal([]byte(doc), &v) == nil {
			p.eval(v)
		}
	})
}

// FuzzDocumentList: any JSON value is a list of documents or not, never a
// panic; strictly read, a list is never empty and every element has a
// document's shape.
func FuzzDocumentList(f *testing.F) {
	for _, s := range []string{`[{"node":{"id_":"a","text":"t"},"score":1}]`, `[{"pageContent":"p","metadata":{"relevanceScore":0.5}}]`,
		`{"documents":[{"id":"a","score":"2"}]}`, `[{"lc":1,"kwargs":{"page_content":"x"}}]`, `[]`, `[{"content":"hi"}]`} {
		f.Add(s)
	}
	r, err := Mapping{}.compile(OTLP)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var v any
		if json.Unmarshal([]byte(data), &v) != nil {
			return
		}
		documentList(v, true)
		docs, ok := documentList(v, false)
		if ok && len(docs) == 0 {
			t.Fatalf("%s: strictly read as an empty list", data)
		}
		for _, d := range docs {
			r.document(d)
		}
	})
}
