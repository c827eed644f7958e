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
	"compress/gzip"
	"context"
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

	"github.com/ragstat/ragstat/internal/localhttp"
)

// DefaultMaxBody is the default limit on one request's body, after
// decompression.
const DefaultMaxBody = 64 << 20

// maxDecoding is how many requests are read and decoded at once; the others
// wait their turn, so memory stays bounded by maxDecoding bodies whatever
// the number of connections.
const maxDecoding = 8

// TracesPath is where OTLP/HTTP exporters send spans.
const TracesPath = "/v1/traces"

// Options configure a Server.
type Options struct {
	// Token, when set, must come with every request as an
	// "Authorization: Bearer" header. It is required when the listener is
	// not on a loopback address.
	Token string
	// MaxBody limits one request's body in bytes, after decompression
	// (DefaultMaxBody when 0).
	MaxBody int64
	Log     *log.Logger // request failures; nil: discarded
}

// Stats count what a Server wrote.
type Stats struct {
	Requests int64 // requests written, one line each
	Spans    int64
	Refused  int64 // requests answered with an error
}

// Server receives OTLP/HTTP trace exports and appends them to a Sink.
type Server struct {
	opt      Options
	ln       net.Listener
	sink     *Sink
	loopback bool
	decoding chan struct{} // a token per request being read and decoded
	requests atomic.Int64
	spans    atomic.Int64
	refused  atomic.Int64
}

// NewServer makes the receiver for ln, writing to sink.
func NewServer(ln net.Listener, sink *Sink, opt Options) (*Server, error) {
	if sink == nil {
		return nil, errors.New("collect: a server needs a sink")
	}
	if opt.MaxBody < 0 {
		return nil, fmt.Errorf("collect: negative body limit %d", opt.MaxBody)
	}
	if opt.MaxBody == 0 {
		opt.MaxBody = DefaultMaxBody
	}
	if opt.Log == nil {
		opt.Log = log.New(io.Discard, "", 0)
	}
	s := &Server{opt: opt, ln: ln, sink: sink, loopback: localhttp.IsLoopback(ln.Addr()), decoding: make(chan struct{}, maxDecoding)}
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
	return Stats{Requests: s.requests.Load(), Spans: s.spans.Load(), Refused: s.refused.Load()}
}

// Serve serves until ctx ends, then stops accepting requests and lets
// those in flight finish (each is written whole and acknowledged, or
// neither).
func (s *Server) Serve(ctx context.Context) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          s.opt.Log,
	}
	return localhttp.Serve(ctx, srv, s.ln, 30*time.Second)
}

// Handler is the receiver: POST /v1/traces behind the host and token
// checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+TracesPath, s.traces)
	cop := http.NewCrossOriginProtection()
	return s.guard(cop.Handler(mux))
}

func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.loopback && !localhttp.LoopbackHost(r.Host) {
			s.refuse(w, http.StatusMisdirectedRequest, "this receiver answers only to localhost, 127.0.0.1 or [::1] (Host "+r.Host+" refused)")
			return
		}
		if s.opt.Token != "" {
			b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || !localhttp.TokenEqual(b, s.opt.Token) {
				s.refuse(w, http.StatusUnauthorized, "access token missing or wrong: send Authorization: Bearer TOKEN (OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20TOKEN)")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) refuse(w http.ResponseWriter, code int, msg string) {
	s.refused.Add(1)
	http.Error(w, msg, code)
}

// encoding is how a request body is encoded.
type encoding struct {
	contentType string
	decode      func([]byte) (ptrace.Traces, error)
	ack         []byte // an empty ExportTraceServiceResponse
}

var (
	protoEncoding = encoding{"application/x-protobuf", (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces, []byte{}}
	jsonEncoding  = encoding{"application/json", (&ptrace.JSONUnmarshaler{}).UnmarshalTraces, []byte("{}")}
)

func (s *Server) traces(w http.ResponseWriter, r *http.Request) {
	enc, err := bodyEncoding(r.Header.Get("Content-Type"))
	if err != nil {
		s.refuse(w, http.StatusUnsupportedMediaType, err.Error())
		return
	}
	line, spans, herr := s.decode(w, r, enc)
	if herr != nil {
		s.refuse(w, herr.code, herr.msg)
		return
	}
	if spans > 0 {
		if err := s.sink.Append(line); err != nil {
			s.opt.Log.Printf("writing a request of %d spans: %v", spans, err)
			s.refuse(w, http.StatusServiceUnavailable, "the receiver could not store the spans: "+err.Error())
			return
		}
		s.requests.Add(1)
		s.spans.Add(int64(spans))
	}
	w.Header().Set("Content-Type", enc.contentType)
	w.WriteHeader(http.StatusOK)
	w.Write(enc.ack)
}

// decode reads the body and re-encodes it as one OTLP/JSON line, holding
// one of the maxDecoding turns.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, enc encoding) ([]byte, int, *httpError) {
	select {
	case s.decoding <- struct{}{}:
		defer func() { <-s.decoding }()
	case <-r.Context().Done():
		return nil, 0, &httpError{http.StatusServiceUnavailable, "the request ended while waiting its turn"}
	}
	body, herr := s.readBody(w, r)
	if herr != nil {
		return nil, 0, herr
	}
	td, err := enc.decode(body)
	if err != nil {
		return nil, 0, &httpError{http.StatusBadRequest, "not an OTLP ExportTraceServiceRequest in " + enc.contentType + ": " + err.Error()}
	}
	n := td.SpanCount()
	if n == 0 {
		return nil, 0, nil
	}
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		return nil, 0, &httpError{http.StatusInternalServerError, "re-encoding the spans: " + err.Error()}
	}
	return line, n, nil
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

// httpError is a request refused with a status code.
type httpError struct {
	code int
	msg  string
}

// readBody reads the request body, decompressed, within the size limit.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *httpError) {
	limit := s.opt.MaxBody
	var body io.Reader = http.MaxBytesReader(w, r.Body, limit)
	switch ce := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); ce {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, bodyError(err, "gzip body")
		}
		defer zr.Close()
		body = zr
	default:
		return nil, &httpError{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q: this receiver accepts gzip or none", ce)}
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, bodyError(err, "body")
	}
	if int64(len(data)) > limit {
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes once decompressed (--max-body-mib)", limit)}
	}
	return data, nil
}

func bodyError(err error, what string) *httpError {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%s over %d bytes (--max-body-mib)", what, tooBig.Limit)}
	}
	return &httpError{http.StatusBadRequest, fmt.Sprintf("reading the %s: %v", what, err)}
}
