package evalemit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// The attributes ragstat adds to every record beside the conventions'.
const (
	AttrID       = "ragstat.evaluation.id"
	AttrVersion  = "ragstat.version"
	AttrManifest = "ragstat.manifest.sha256"
	AttrSystem   = "ragstat.system"
	AttrQuery    = "ragstat.query"
)

// EventName is the OpenTelemetry GenAI event of an evaluation.
const EventName = "gen_ai.evaluation.result"

// otlpIDs reads an annotation's ids as OTLP ids: 32 and 16 hexadecimal
// digits, not all zero.
func otlpIDs(a Annotation) (pcommon.TraceID, pcommon.SpanID, bool) {
	var t pcommon.TraceID
	var s pcommon.SpanID
	if len(a.TraceID) != 2*len(t) || len(a.SpanID) != 2*len(s) {
		return t, s, false
	}
	if _, err := hex.Decode(t[:], []byte(a.TraceID)); err != nil {
		return t, s, false
	}
	if _, err := hex.Decode(s[:], []byte(a.SpanID)); err != nil {
		return t, s, false
	}
	return t, s, !t.IsEmpty() && !s.IsEmpty()
}

// scope names ragstat as the instrumentation scope of what it writes.
func scope(sc pcommon.InstrumentationScope, s stamp) {
	sc.SetName("ragstat")
	sc.SetVersion(s.version)
}

// resource names ragstat as the service, then puts the stamp's resource
// attributes, in the order of their names.
func resource(r pcommon.Resource, s stamp) {
	r.Attributes().PutStr("service.name", "ragstat")
	for _, k := range slices.Sorted(maps.Keys(s.resource)) {
		r.Attributes().PutStr(k, s.resource[k])
	}
}

// stamped puts the attributes every record carries: the version and the
// manifest that produced it, and the system and query evaluated.
func stamped(m pcommon.Map, a Annotation, s stamp) {
	m.PutStr(AttrVersion, s.version)
	m.PutStr(AttrManifest, s.digest)
	m.PutStr(AttrSystem, a.System)
	m.PutStr(AttrQuery, a.Query)
}

// linked calls fn with every annotation whose ids are OTLP ids (otlpIDs),
// and the ids, and returns how many there were.
func linked(anns []Annotation, fn func(a Annotation, tid pcommon.TraceID, sid pcommon.SpanID)) int {
	n := 0
	for _, a := range anns {
		if tid, sid, ok := otlpIDs(a); ok {
			n++
			fn(a, tid, sid)
		}
	}
	return n
}

// request writes an export request holding n records as a line of JSON;
// with none, nothing.
func request(w io.Writer, n int, marshal func() ([]byte, error)) (int, error) {
	if n == 0 {
		return 0, nil
	}
	b, err := marshal()
	if err != nil {
		return 0, err
	}
	return n, line(w, b)
}

// writeOTLP writes one logs export request: a gen_ai.evaluation.result log
// record for each annotation.
func writeOTLP(w io.Writer, anns []Annotation, s stamp) (int, error) {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	resource(rl.Resource(), s)
	sl := rl.ScopeLogs().AppendEmpty()
	scope(sl.Scope(), s)
	n := linked(anns, func(a Annotation, tid pcommon.TraceID, sid pcommon.SpanID) {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetEventName(EventName)
		lr.SetTraceID(tid)
		lr.SetSpanID(sid)
		if !s.time.IsZero() {
			lr.SetTimestamp(pcommon.NewTimestampFromTime(s.time))
			lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(s.time))
		}
		m := lr.Attributes()
		m.PutStr("gen_ai.evaluation.name", a.Name)
		m.PutDouble("gen_ai.evaluation.score.value", a.Score)
		if a.Label != "" {
			m.PutStr("gen_ai.evaluation.score.label", a.Label)
		}
		m.PutStr("gen_ai.evaluation.explanation", a.Explanation)
		m.PutStr(AttrID, a.ID)
		stamped(m, a, s)
	})
	return request(w, n, plogotlp.NewExportRequestFromLogs(ld).MarshalJSON)
}

// writeOpenInference writes one traces export request: for each evaluated
// span, a post-hoc carrier span in its trace with exactly one link, to it,
// holding its annotations (OpenInference's annotation conventions: the
// stable id is each annotation's identifier).
func writeOpenInference(w io.Writer, anns []Annotation, s stamp) (int, error) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	resource(rs.Resource(), s)
	ss := rs.ScopeSpans().AppendEmpty()
	scope(ss.Scope(), s)
	// Each annotation's metadata names the version and the manifest.
	b, err := json.Marshal(map[string]string{AttrVersion: s.version, AttrManifest: s.digest})
	if err != nil {
		return 0, err
	}
	meta := string(b)
	carriers := map[string]pcommon.Map{}
	count := map[string]int{}
	n := linked(anns, func(a Annotation, tid pcommon.TraceID, sid pcommon.SpanID) {
		key := a.TraceID + "/" + a.SpanID
		m, seen := carriers[key]
		if !seen {
			sp := ss.Spans().AppendEmpty()
			sp.SetTraceID(tid)
			sp.SetSpanID(carrierID(a))
			sp.SetName("ragstat evaluation")
			sp.SetKind(ptrace.SpanKindInternal)
			if !s.time.IsZero() {
				sp.SetStartTimestamp(pcommon.NewTimestampFromTime(s.time))
				sp.SetEndTimestamp(pcommon.NewTimestampFromTime(s.time))
			}
			link := sp.Links().AppendEmpty()
			link.SetTraceID(tid)
			link.SetSpanID(sid)
			m = sp.Attributes()
			m.PutStr("openinference.span.kind", "EVALUATOR")
			stamped(m, a, s)
			carriers[key] = m
		}
		p := "annotations." + strconv.Itoa(count[key]) + ".annotation."
		count[key]++
		m.PutStr(p+"identifier", a.ID)
		m.PutStr(p+"name", a.Name)
		m.PutDouble(p+"score", a.Score)
		if a.Label != "" {
			m.PutStr(p+"label", a.Label)
		}
		m.PutStr(p+"explanation", a.Explanation)
		m.PutStr(p+"annotator_kind", "CODE")
		m.PutStr(p+"metadata", meta)
	})
	return request(w, n, ptraceotlp.NewExportRequestFromTraces(td).MarshalJSON)
}

// carrierID is the carrier span's id: stable, from the span it evaluates.
func carrierID(a Annotation) pcommon.SpanID {
	h := sha256.Sum256([]byte(strconv.Itoa(len(a.TraceID)) + ":" + a.TraceID + "/" + a.SpanID + "/openinference"))
	var id pcommon.SpanID
	copy(id[:], h[:])
	return id
}

// LangfuseScore is a score as Langfuse's ingestion takes it.
type LangfuseScore struct {
	ID            string            `json:"id"`
	TraceID       string            `json:"traceId"`
	ObservationID string            `json:"observationId"`
	Name          string            `json:"name"`
	Value         float64           `json:"value"`
	DataType      string            `json:"dataType"`
	Comment       string            `json:"comment"`
	Metadata      map[string]string `json:"metadata"`
}

// writeLangfuse writes one score a line.
func writeLangfuse(w io.Writer, anns []Annotation, s stamp) (int, error) {
	for i, a := range anns {
		sc := LangfuseScore{ID: a.ID, TraceID: a.TraceID, ObservationID: a.SpanID, Name: a.Name, Comment: a.Explanation,
			Value: a.Score, DataType: "NUMERIC", Metadata: map[string]string{AttrVersion: s.version, AttrManifest: s.digest, AttrSystem: a.System, AttrQuery: a.Query}}
		if a.Label != "" {
			sc.Metadata["label"] = a.Label
		}
		b, err := json.Marshal(sc)
		if err != nil {
			return i, err
		}
		if err := line(w, b); err != nil {
			return i, err
		}
	}
	return len(anns), nil
}

func line(w io.Writer, b []byte) error {
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("evalemit: %w", err)
	}
	return nil
}
