// Package collect is an OTLP/HTTP trace receiver for an evaluation run:
// an application instrumented with OpenTelemetry exports its spans to it
// (POST /v1/traces, protobuf or JSON, optionally gzip-compressed), and
// every request is appended to a file as one line of OTLP/JSON, the format
// the OpenTelemetry Collector's file exporter writes, flushed to stable
// storage before the request is acknowledged: a span the application saw
// accepted is never lost, even if the receiver is killed.
//
// On a loopback address the receiver answers only to loopback host names
// (against DNS rebinding); anywhere else every request needs the access
// token as "Authorization: Bearer TOKEN".
package collect

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/localhttp"
	"github.com/ragstat/ragstat/traceimport"
)

// Defaults of the limits Options set.
const (
	// DefaultMaxBody limits one request's body, in bytes as sent and once
	// decompressed. The OpenTelemetry Collector's own default is 20 MiB;
	// exporters send batches of 512 spans.
	DefaultMaxBody = 16 << 20
	// DefaultMaxSpans limits the spans of one request.
	DefaultMaxSpans = 100_000
	// DefaultMaxInFlight limits the memory the requests in flight hold
	// together: their bodies, and what decoding them takes (estimated
	// from their messages, counted before they are decoded).
	DefaultMaxInFlight = 256 << 20
	// DefaultMinRate is the slowest a body may arrive, in bytes a second,
	// once the first ReadGrace has passed.
	DefaultMinRate = 16 << 10
)

// ReadGrace is the time a request's body gets before it must arrive at
// the minimum rate: a body of n bytes must be read within ReadGrace +
// n/MinRate, with no pause longer than ReadGrace.
const ReadGrace = 5 * time.Second

// MaxWait is the longest a request waits for memory or a decoding turn
// while others are being decoded; then it is answered 503 Service
// Unavailable with Retry-After (exporters retry). Slow senders hold
// neither, so they never delay another request.
const MaxWait = 5 * time.Second

// maxDecoding is how many requests are decompressed and decoded at once;
// the others wait their turn (MaxWait at most).
const maxDecoding = 4

// TracesPath is where OTLP/HTTP exporters send spans.
const TracesPath = "/v1/traces"

// LangfusePath is where the Langfuse SDKs send spans (their OTLP/HTTP
// endpoint); collect takes them there too.
const LangfusePath = "/api/public/otel/v1/traces"

// Options configure a Server.
type Options struct {
	// Token, when set, must come with every request as an
	// "Authorization: Bearer" header. It is required when the listener is
	// not on a loopback address.
	Token string
	// MaxBody limits one request's body in bytes, as sent and once
	// decompressed (DefaultMaxBody when 0).
	MaxBody int64
	// MaxSpans limits the spans of one request (DefaultMaxSpans when 0).
	MaxSpans int
	// MaxInFlight limits the bytes the requests in flight hold together:
	// at least 4 times MaxBody (when 0, DefaultMaxInFlight or 4 times
	// MaxBody, whichever is larger). A request that alone would take more
	// is refused.
	MaxInFlight int64
	// MinRate is the slowest a body may be sent, in bytes a second
	// (DefaultMinRate when 0): a slower sender is cut off.
	MinRate int64
	Log     *log.Logger // refused requests, once per Reason; nil: discarded
}

// Reason is why a request was refused.
type Reason int

const (
	Misdirected  Reason = iota // a Host other than loopback on a loopback listener (421)
	Unauthorized               // access token missing or wrong (401)
	CrossOrigin                // sent by a web page of another origin (403)
	NotFound                   // another path or method (404, 405)
	Unsupported                // another content type or encoding (415)
	TooLarge                   // body over MaxBody, or a span over the line limit (413)
	TooManySpans               // more than MaxSpans spans (413)
	OverMemory                 // decoding would take more than MaxInFlight (413)
	Busy                       // no memory or decoding turn within MaxWait (503)
	TooSlow                    // body slower than MinRate (408)
	Malformed                  // not an OTLP export (400)
	NotStored                  // the output could not be written (503)
	NumReasons
)

var reasonNames = [NumReasons]string{"wrong host", "no access token", "cross-origin", "wrong path", "unsupported media type",
	"too large", "too many spans", "over the memory limit", "busy", "too slow", "malformed", "not stored"}

func (r Reason) String() string {
	if r < 0 || r >= NumReasons {
		return fmt.Sprintf("Reason(%d)", int(r))
	}
	return reasonNames[r]
}

// Stats count what a Server wrote.
type Stats struct {
	Requests int64 // requests written
	Spans    int64
	Refused  int64 // requests answered with an error
	ByReason [NumReasons]int64
}

// Server receives OTLP/HTTP and OTLP/gRPC trace exports and appends them
// to a Sink.
type Server struct {
	opt      Options
	ln       net.Listener
	sink     *Sink
	loopback bool
	decoding chan struct{} // a token per request being decoded
	mem      *budget
	maxLine  int // longest line written, newline included: what ragstat import reads
	grace    time.Duration
	wait     time.Duration
	requests atomic.Int64
	spans    atomic.Int64
	refused  [NumReasons]atomic.Int64
	logged   [NumReasons]atomic.Bool
}

// NewServer makes the receiver for ln, writing to sink.
func NewServer(ln net.Listener, sink *Sink, opt Options) (*Server, error) {
	if sink == nil {
		return nil, errors.New("collect: a server needs a sink")
	}
	if opt.MaxBody < 0 || opt.MaxSpans < 0 || opt.MaxInFlight < 0 || opt.MinRate < 0 {
		return nil, fmt.Errorf("collect: negative limit in %+v", opt)
	}
	opt.MaxBody = cmp.Or(opt.MaxBody, DefaultMaxBody)
	opt.MaxSpans = cmp.Or(opt.MaxSpans, DefaultMaxSpans)
	opt.MaxInFlight = cmp.Or(opt.MaxInFlight, max(DefaultMaxInFlight, 4*opt.MaxBody))
	if opt.MaxInFlight < 4*opt.MaxBody {
		return nil, fmt.Errorf("collect: an in-flight limit of %d bytes is under 4 times the body limit of %d bytes: the largest request could not be decoded", opt.MaxInFlight, opt.MaxBody)
	}
	opt.MinRate = cmp.Or(opt.MinRate, DefaultMinRate)
	if opt.Log == nil {
		opt.Log = log.New(io.Discard, "", 0)
	}
	s := &Server{opt: opt, ln: ln, sink: sink, loopback: localhttp.IsLoopback(ln.Addr()),
		decoding: make(chan struct{}, maxDecoding), mem: newBudget(opt.MaxInFlight),
		maxLine: traceimport.MaxRecord, grace: ReadGrace, wait: MaxWait}
	if !s.loopback && opt.Token == "" {
		return nil, fmt.Errorf("listening on %s, off the loopback interface, needs an access token", ln.Addr())
	}
	return s, nil
}

// Endpoint is the base URL to give exporters (OTEL_EXPORTER_OTLP_ENDPOINT):
// the listener's address, or this host's name when it listens on every
// interface.
func (s *Server) Endpoint() string {
	host := s.ln.Addr().String()
	if tcp, ok := s.ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			host = net.JoinHostPort(name, strconv.Itoa(tcp.Port))
		}
	}
	return "http://" + host
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	st := Stats{Requests: s.requests.Load(), Spans: s.spans.Load()}
	for r := range st.ByReason {
		st.ByReason[r] = s.refused[r].Load()
		st.Refused += st.ByReason[r]
	}
	return st
}

// Serve serves OTLP/HTTP until ctx ends, then stops accepting requests and
// lets those in flight finish (each is written whole and acknowledged, or
// neither).
func (s *Server) Serve(ctx context.Context) error {
	srv := &http.Server{
		Handler: s.Handler(),
		// The body's deadline is set as it arrives (MinRate), and the
		// answer's once it is read.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          s.opt.Log,
	}
	return localhttp.Serve(ctx, srv, s.ln, 30*time.Second)
}

// Handler is the receiver: POST /v1/traces (or LangfusePath) behind the
// host, token and origin checks.
func (s *Server) Handler() http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.refuseHTTP(w, r, &refusal{http.StatusForbidden, CrossOrigin, "cross-origin request refused"})
	}))
	return s.guard(cop.Handler(http.HandlerFunc(s.route)))
}

func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.loopback && !localhttp.LoopbackHost(r.Host) {
			s.refuseHTTP(w, r, &refusal{http.StatusMisdirectedRequest, Misdirected, "this receiver answers only to localhost, 127.0.0.1 or [::1] (Host " + r.Host + " refused)"})
			return
		}
		if s.opt.Token != "" && !s.authorized(r.Header.Get("Authorization")) {
			s.refuseHTTP(w, r, &refusal{http.StatusUnauthorized, Unauthorized, "access token missing or wrong: send Authorization: Bearer TOKEN (OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20TOKEN), or, from a Langfuse SDK, the token as the secret key"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authorized reports whether an Authorization header carries the token:
// as a bearer token, or as the password of basic authentication, which is
// how the Langfuse SDKs send their secret key.
func (s *Server) authorized(header string) bool {
	if b, ok := strings.CutPrefix(header, "Bearer "); ok {
		return localhttp.TokenEqual(b, s.opt.Token)
	}
	if b, ok := strings.CutPrefix(header, "Basic "); ok {
		user, err := base64.StdEncoding.DecodeString(b)
		_, password, found := strings.Cut(string(user), ":")
		return err == nil && found && localhttp.TokenEqual(password, s.opt.Token)
	}
	return false
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != TracesPath && r.URL.Path != LangfusePath {
		s.refuseHTTP(w, r, &refusal{http.StatusNotFound, NotFound, "no such path: OTLP/HTTP exporters send spans to " + TracesPath + " (the Langfuse SDKs to " + LangfusePath + ")"})
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.refuseHTTP(w, r, &refusal{http.StatusMethodNotAllowed, NotFound, r.Method + " " + r.URL.Path + ": exporters POST their spans"})
		return
	}
	s.traces(w, r)
}

// refusal is a request refused, with its status code and why.
type refusal struct {
	code   int
	reason Reason
	msg    string
}

// note counts a refusal and logs the first of each Reason, with what
// the request was.
func (s *Server) note(ref *refusal, path, contentType string, size int64) {
	s.refused[ref.reason].Add(1)
	if s.logged[ref.reason].Swap(true) {
		return
	}
	sz := "size unknown"
	if size >= 0 {
		sz = fmt.Sprintf("%d bytes", size)
	}
	s.opt.Log.Printf("refused a request (%s): %s, Content-Type %q, %s: %s [logged once; later ones are counted]", ref.reason, path, contentType, sz, ref.msg)
}

func (s *Server) refuseHTTP(w http.ResponseWriter, r *http.Request, ref *refusal) {
	s.note(ref, r.Method+" "+r.URL.Path, r.Header.Get("Content-Type"), r.ContentLength)
	if ref.code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	if ref.reason == TooSlow {
		w.Header().Set("Connection", "close")
	}
	http.Error(w, ref.msg, ref.code)
}

// encoding is how a request body is encoded.
type encoding struct {
	contentType string
	count       func(b []byte, maxSpans, maxItems int) (counts, error)
	decode      func([]byte) (ptrace.Traces, error)
	ack         []byte // an empty ExportTraceServiceResponse
}

var (
	protoEncoding = encoding{"application/x-protobuf", countProto, (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces, []byte{}}
	jsonEncoding  = encoding{"application/json", countJSON, (&ptrace.JSONUnmarshaler{}).UnmarshalTraces, []byte("{}")}
)

func (s *Server) traces(w http.ResponseWriter, r *http.Request) {
	enc, err := bodyEncoding(r.Header.Get("Content-Type"))
	if err != nil {
		s.refuseHTTP(w, r, &refusal{http.StatusUnsupportedMediaType, Unsupported, err.Error()})
		return
	}
	gzipped := false
	switch ce := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); ce {
	case "", "identity":
	case "gzip":
		gzipped = true
	default:
		s.refuseHTTP(w, r, &refusal{http.StatusUnsupportedMediaType, Unsupported, fmt.Sprintf("Content-Encoding %q: this receiver accepts gzip or none", ce)})
		return
	}
	if r.ContentLength > s.opt.MaxBody {
		s.refuseHTTP(w, r, s.tooLarge("body"))
		return
	}
	deadline := time.Now().Add(s.grace)
	rc := http.NewResponseController(w)
	body := &rateReader{r: r.Body, rc: rc, start: deadline, idle: s.grace, rate: s.opt.MinRate}
	raw, held, ref := s.readAll(r.Context(), body, "body")
	defer s.mem.release(held)
	if ref == nil {
		rc.SetReadDeadline(time.Time{})
		rc.SetWriteDeadline(time.Now().Add(s.wait + time.Minute))
		_, ref = s.export(r.Context(), raw, held, gzipped, enc)
	}
	if ref != nil {
		s.refuseHTTP(w, r, ref)
		return
	}
	w.Header().Set("Content-Type", enc.contentType)
	w.WriteHeader(http.StatusOK)
	w.Write(enc.ack)
}

// rateReader reads a request body that must arrive at rate bytes a
// second on average after start, with no pause longer than idle: a sender
// can neither trickle bytes nor send a burst and then hold the connection
// on the credit it earned.
type rateReader struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	idle  time.Duration
	rate  int64
	n     int64
}

func (b *rateReader) Read(p []byte) (int, error) {
	deadline := b.start.Add(time.Duration(float64(b.n) / float64(b.rate) * float64(time.Second)))
	if pause := time.Now().Add(b.idle); pause.Before(deadline) {
		deadline = pause
	}
	// A handler called without a connection (a test) has no deadlines.
	b.rc.SetReadDeadline(deadline)
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

// export decodes a body (decompressing it when gzipped), writes its spans
// and returns how many it wrote.
func (s *Server) export(ctx context.Context, raw []byte, rawHeld int64, gzipped bool, enc encoding) (int, *refusal) {
	lines, n, held, ref := s.decode(ctx, raw, rawHeld, gzipped, enc)
	defer s.mem.release(held)
	if ref != nil || n == 0 {
		return 0, ref
	}
	if err := s.sink.Append(lines...); err != nil {
		s.opt.Log.Printf("writing a request of %d spans: %v", n, err)
		return 0, &refusal{http.StatusServiceUnavailable, NotStored, "the receiver could not store the spans: " + err.Error()}
	}
	s.requests.Add(1)
	s.spans.Add(int64(n))
	return n, nil
}

// decode turns a body into the OTLP/JSON lines to write, holding one of
// the maxDecoding turns. The body's spans and messages are counted on the
// wire before it is decoded, and what decoding takes is reserved; held is
// what the caller releases once the lines are written, beside the rawHeld
// it holds for raw.
func (s *Server) decode(ctx context.Context, raw []byte, rawHeld int64, gzipped bool, enc encoding) (lines [][]byte, spans int, held int64, ref *refusal) {
	deadline := time.Now().Add(s.wait)
	if !s.turn(ctx, deadline) {
		return nil, 0, 0, s.busy()
	}
	defer func() { <-s.decoding }()
	body := raw
	if gzipped {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, 0, 0, &refusal{http.StatusBadRequest, Malformed, "reading the gzip body: " + err.Error()}
		}
		if body, held, ref = s.readAll(ctx, zr, "body once decompressed"); ref != nil {
			return nil, 0, held, ref
		}
	}
	room := s.opt.MaxInFlight - rawHeld - held - 2*int64(len(body))
	maxItems := int(max(0, room/itemCost))
	c, err := enc.count(body, s.opt.MaxSpans, maxItems)
	switch {
	case errors.Is(err, errOverCount) && c.spans > s.opt.MaxSpans:
		return nil, 0, held, &refusal{http.StatusRequestEntityTooLarge, TooManySpans, fmt.Sprintf("more than %d spans in one request (--max-spans); send smaller batches", s.opt.MaxSpans)}
	case errors.Is(err, errOverCount):
		return nil, 0, held, s.overMemory()
	case err != nil:
		return nil, 0, held, &refusal{http.StatusBadRequest, Malformed, "not an OTLP ExportTraceServiceRequest in " + enc.contentType + ": " + err.Error()}
	}
	cost := c.cost(len(body))
	if rawHeld+held+cost > s.opt.MaxInFlight {
		return nil, 0, held, s.overMemory()
	}
	if !s.mem.acquire(ctx, cost, deadline) {
		return nil, 0, held, s.busy()
	}
	held += cost
	td, err := enc.decode(body)
	if err != nil {
		return nil, 0, held, &refusal{http.StatusBadRequest, Malformed, "not an OTLP ExportTraceServiceRequest in " + enc.contentType + ": " + err.Error()}
	}
	if td.SpanCount() == 0 {
		return nil, 0, held, nil
	}
	lines, err = s.encodeLines(td)
	if err != nil {
		return nil, 0, held, &refusal{http.StatusRequestEntityTooLarge, TooLarge, err.Error()}
	}
	return lines, td.SpanCount(), held, nil
}

// turn waits for a decoding turn until deadline.
func (s *Server) turn(ctx context.Context, deadline time.Time) bool {
	select {
	case s.decoding <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case s.decoding <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

func (s *Server) busy() *refusal {
	return &refusal{http.StatusServiceUnavailable, Busy, fmt.Sprintf("busy: no memory or decoding turn free within %v (--max-inflight-mib %d); retry", s.wait, s.opt.MaxInFlight>>20)}
}

func (s *Server) overMemory() *refusal {
	return &refusal{http.StatusRequestEntityTooLarge, OverMemory, fmt.Sprintf("decoding this request would take more than %d MiB, the limit for every request in flight together (--max-inflight-mib); send smaller batches", s.opt.MaxInFlight>>20)}
}

func (s *Server) tooLarge(what string) *refusal {
	return &refusal{http.StatusRequestEntityTooLarge, TooLarge, fmt.Sprintf("%s over %d bytes (--max-body-mib)", what, s.opt.MaxBody)}
}

// readAll reads r whole, up to MaxBody bytes, reserving the memory it
// holds as it grows (waiting for it s.wait at most); held is what it
// reserved, to be released by the caller.
func (s *Server) readAll(ctx context.Context, r io.Reader, what string) (data []byte, held int64, ref *refusal) {
	limit := s.opt.MaxBody
	for {
		if len(data) == cap(data) {
			if int64(len(data)) > limit {
				return nil, held, s.tooLarge(what)
			}
			// Grown as bytes arrive: a sender holds no more memory
			// than about twice what it sent.
			grown := min(max(2*int64(cap(data)), 4<<10), limit+1)
			if !s.mem.acquire(ctx, grown, time.Now().Add(s.wait)) {
				return nil, held, s.busy()
			}
			data = append(make([]byte, 0, grown), data...)
			s.mem.release(held)
			held = grown
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, held, s.tooLarge(what)
		}
		switch {
		case err == io.EOF:
			return data, held, nil
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, held, &refusal{http.StatusRequestTimeout, TooSlow, fmt.Sprintf("the %s came slower than %d bytes a second after the first %v (--min-rate-kib)", what, s.opt.MinRate, s.grace)}
		case err != nil:
			return nil, held, &refusal{http.StatusBadRequest, Malformed, fmt.Sprintf("reading the %s: %v", what, err)}
		}
	}
}

func bodyEncoding(contentType string) (encoding, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case err != nil && contentType != "":
		return encoding{}, fmt.Errorf("bad Content-Type %q: %v", contentType, err)
	case mt == protoEncoding.contentType:
		return protoEncoding, nil
	case mt == jsonEncoding.contentType:
		return jsonEncoding, nil
	}
	return encoding{}, fmt.Errorf("Content-Type %q: OTLP/HTTP sends application/x-protobuf or application/json", contentType)
}
