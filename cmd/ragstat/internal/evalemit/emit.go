// Package evalemit writes ragstat's evaluations back onto the traces they
// describe, in the forms trace tools read: OpenTelemetry
// gen_ai.evaluation.result log records (OTLP/JSON), OpenInference
// annotation spans (OTLP/JSON), or Langfuse scores. Each annotation carries
// the trace id and span id of the span it evaluates, as an import recorded
// them (trace.Trace.TraceID, trace.Stage.SpanID): each stage's metrics on
// its retrieval span, each relevant item's and fact's verdict and each
// validity finding on the span that carried it, the fact coverage and the
// answer checks on the generator's span.
//
// An Emitter gathers the annotations of each trace's record as it is
// evaluated (Add is a stages.Options.PerQuery) in a temporary file, and
// writes them once the result is known (Finish), every record naming
// ragstat's version and the result's manifest digest. Ids are stable: the
// same evaluation written again gives the same ids.
package evalemit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ragstat/ragstat/internal/scratch"
	"github.com/ragstat/ragstat/stages"
)

// Format is a form of the annotations.
type Format string

// The formats.
const (
	// OTLP writes one OTLP/JSON logs export request a line, each trace's
	// annotations as gen_ai.evaluation.result log records.
	OTLP Format = "otlp"
	// OpenInference writes one OTLP/JSON traces export request a line: a
	// carrier span per evaluated span, linked to it, with the
	// annotations as annotations.{i}.annotation.* attributes.
	OpenInference Format = "openinference"
	// Langfuse writes one score object a line, as Langfuse's score
	// ingestion takes it (POST /api/public/scores).
	Langfuse Format = "langfuse"
)

// ParseFormat reads a format by name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case OTLP, OpenInference, Langfuse:
		return f, nil
	}
	return "", fmt.Errorf("unknown evaluation format %q: use otlp, openinference or langfuse", s)
}

// Options say how annotations are written.
type Options struct {
	Format Format
	// Version is ragstat's version, named by every record.
	Version string
	// Time stamps the records (OTLP log records, carrier spans); zero:
	// no timestamp.
	Time time.Time
	// Resource holds resource attributes of the OTLP forms' requests,
	// beside service.name "ragstat" (which they may replace): Phoenix, for
	// one, files spans in the project named by openinference.project.name.
	Resource map[string]string
}

// Counts say what Finish wrote and left out.
type Counts struct {
	Written int `json:"written"`
	// Unlinked counts annotations left out because the trace or stage
	// recorded no span id (not imported), or, for the OTLP forms, ids
	// that are not OTLP ids (LangSmith's or Langfuse's own).
	Unlinked int `json:"unlinked"`
	// Sent counts the requests an endpoint accepted, when they were sent
	// (Send).
	Sent int `json:"sent,omitempty"`
}

// Emitter gathers annotations as traces are evaluated.
type Emitter struct {
	opt      Options
	spool    *os.File
	buf      *bufio.Writer
	unlinked int
}

// New starts an Emitter, its annotations held in a temporary file (in
// os.TempDir) until Finish; Close removes it.
func New(opt Options) (*Emitter, error) {
	if _, err := ParseFormat(string(opt.Format)); err != nil {
		return nil, fmt.Errorf("evalemit: Options.Format: %v", err)
	}
	if len(opt.Resource) > 0 && opt.Format == Langfuse {
		return nil, errors.New("evalemit: Options.Resource: Langfuse scores have no resource")
	}
	for k := range opt.Resource {
		if strings.TrimSpace(k) == "" {
			return nil, errors.New("evalemit: Options.Resource: a blank attribute name")
		}
	}
	f, err := os.CreateTemp("", "ragstat-annotations-*.jsonl")
	if err != nil {
		return nil, err
	}
	return &Emitter{opt: opt, spool: f, buf: bufio.NewWriter(f)}, nil
}

// Add gathers what r says of its spans (see Annotations).
func (e *Emitter) Add(r *stages.QueryRecord) error {
	anns, unlinked := Annotations(r)
	e.unlinked += unlinked
	if len(anns) == 0 {
		return nil
	}
	b, err := json.Marshal(anns)
	if err != nil {
		return err
	}
	e.buf.Write(b)
	return e.buf.WriteByte('\n')
}

// Finish writes every annotation gathered to w, naming in each record the
// result's manifest digest.
func (e *Emitter) Finish(w io.Writer, manifestDigest string) (Counts, error) {
	c := Counts{Unlinked: e.unlinked}
	if err := e.buf.Flush(); err != nil {
		return c, err
	}
	if _, err := e.spool.Seek(0, io.SeekStart); err != nil {
		return c, err
	}
	s := stamp{version: e.opt.Version, digest: manifestDigest, time: e.opt.Time, resource: e.opt.Resource}
	write := map[Format]func(io.Writer, []Annotation, stamp) (int, error){OTLP: writeOTLP, OpenInference: writeOpenInference, Langfuse: writeLangfuse}[e.opt.Format]
	bw := bufio.NewWriter(w)
	dec := json.NewDecoder(bufio.NewReader(e.spool))
	for {
		var anns []Annotation
		if err := dec.Decode(&anns); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return c, fmt.Errorf("evalemit: reading back the annotations: %w", err)
		}
		n, err := write(bw, anns, s)
		c.Written += n
		c.Unlinked += len(anns) - n
		if err != nil {
			return c, err
		}
	}
	return c, bw.Flush()
}

// Close removes the temporary file.
func (e *Emitter) Close() error {
	if e == nil || e.spool == nil {
		return nil
	}
	err := scratch.Remove(e.spool)
	e.spool = nil
	return err
}

// stamp is what every record names.
type stamp struct {
	version, digest string
	time            time.Time
	resource        map[string]string
}
