package traceimport

import (
	"slices"
	"testing"
)

// TestSettle: steps that started in the same millisecond with the same
// list, neither taking the other's output, are ordered sources first, then
// as the system's earlier fully ordered trace showed; other steps keep
// their place.
func TestSettle(t *testing.T) {
	p8 := []document{{id: "p8"}}
	step := func(name string, startMs int64, input bool, docs []document) *span {
		return &span{name: name, start: startMs * 1e6, hasInputDocs: input, docs: docs}
	}
	names := func(spans []*span) []string {
		var out []string
		for _, s := range spans {
			out = append(out, s.name)
		}
		return out
	}
	a := &assembler{orders: map[string]map[string]int{}}
	// A trace whose order is known: the steps started in different milliseconds.
	known := []*span{step("retrieve", 1, false, p8), step("rerank", 2, true, p8), step("pack", 3, true, p8)}
	a.settle("sys", known, nil, nil)
	if got := names(known); !slices.Equal(got, []string{"retrieve", "rerank", "pack"}) {
		t.Fatalf("known trace reordered: %v", got)
	}
	for _, c := range []struct {
		system string
		in     []*span
		want   []string
	}{
		{"sys", []*span{step("pack", 5, true, p8), step("rerank", 5, true, p8), step("retrieve", 5, false, p8)}, []string{"retrieve", "rerank", "pack"}},
		{"other", []*span{step("pack", 5, true, p8), step("rerank", 5, true, p8), step("retrieve", 5, false, p8)}, []string{"retrieve", "pack", "rerank"}},
		{"sys", []*span{step("pack", 5, true, p8), step("rerank", 6, true, p8)}, []string{"pack", "rerank"}},
		{"sys", []*span{step("pack", 5, true, p8), step("rerank", 5, true, []document{{id: "p1"}})}, []string{"pack", "rerank"}},
	} {
		a.settle(c.system, c.in, nil, nil)
		if got := names(c.in); !slices.Equal(got, c.want) {
			t.Errorf("%s %v: got %v", c.system, c.want, got)
		}
	}
	// A producer link orders two steps: they are not tied.
	x, y := step("pack", 7, true, p8), step("rerank", 7, true, p8)
	in := []*span{x, y}
	a.settle("third", in, map[*span]*span{x: y}, nil)
	if got := names(in); !slices.Equal(got, []string{"pack", "rerank"}) {
		t.Errorf("producer-linked steps reordered: %v", got)
	}
	// A step that holds another (LlamaIndex.TS's query engine retrieve
	// span, whose output is what its packer left) comes after it, though
	// it takes no documents: as captured from a trace exported over gRPC
	// in one batch, the packer and the span around it started in one
	// millisecond with one list. A trace of the system "sys" learned no
	// order for them either way.
	pack, retrieve := step("pack.task", 9, true, p8), step("retriever_query_engine.retrieve", 9, false, p8)
	pack.id, retrieve.id, pack.parent = "pack", "retrieve", "retrieve"
	in = []*span{pack, retrieve}
	a.settle("fourth", in, nil, parentIDs([]*span{pack, retrieve}))
	if got := names(in); !slices.Equal(got, []string{"pack.task", "retriever_query_engine.retrieve"}) {
		t.Errorf("a step put before the step it holds: %v", got)
	}
}
