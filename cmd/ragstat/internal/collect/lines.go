package collect

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// encodeLines encodes td as OTLP/JSON lines of fewer than s.maxLine bytes
// each (the longest line ragstat import reads, with its newline): a
// request too large for one line is split by its spans, each line keeping
// its spans' resource and scope.
func (s *Server) encodeLines(td ptrace.Traces) ([][]byte, error) {
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		return nil, fmt.Errorf("re-encoding the spans: %w", err)
	}
	if len(line) < s.maxLine {
		return [][]byte{line}, nil
	}
	n := td.SpanCount()
	if n <= 1 {
		return nil, fmt.Errorf("one span takes %d bytes as OTLP/JSON, more than the %d bytes of a line ragstat import reads", len(line), s.maxLine-1)
	}
	line = nil
	first, rest := splitTraces(td, n/2)
	a, err := s.encodeLines(first)
	if err != nil {
		return nil, err
	}
	b, err := s.encodeLines(rest)
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}

// splitTraces copies the first n spans of td into one export and the
// others into another.
func splitTraces(td ptrace.Traces, n int) (ptrace.Traces, ptrace.Traces) {
	a, b := newBuilder(), newBuilder()
	i := 0
	for r, rs := range td.ResourceSpans().All() {
		for k, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				dst := a
				if i >= n {
					dst = b
				}
				dst.add(r, rs, k, ss, sp)
				i++
			}
		}
	}
	return a.td, b.td
}

// builder makes an export span by span, in order, with the resource and
// scope of each.
type builder struct {
	td   ptrace.Traces
	r, k int // the resource and scope being added to
	rs   ptrace.ResourceSpans
	ss   ptrace.ScopeSpans
}

func newBuilder() *builder { return &builder{td: ptrace.NewTraces(), r: -1, k: -1} }

func (b *builder) add(r int, rs ptrace.ResourceSpans, k int, ss ptrace.ScopeSpans, sp ptrace.Span) {
	if r != b.r {
		b.rs = b.td.ResourceSpans().AppendEmpty()
		rs.Resource().CopyTo(b.rs.Resource())
		b.rs.SetSchemaUrl(rs.SchemaUrl())
		b.r, b.k = r, -1
	}
	if k != b.k {
		b.ss = b.rs.ScopeSpans().AppendEmpty()
		ss.Scope().CopyTo(b.ss.Scope())
		b.ss.SetSchemaUrl(ss.SchemaUrl())
		b.k = k
	}
	sp.CopyTo(b.ss.Spans().AppendEmpty())
}
