package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/localhttp"
	"github.com/ragstat/ragstat/internal/diag"
)

// DefaultAddr is the standard OTLP/HTTP port on the loopback interface.
const DefaultAddr = "127.0.0.1:4318"

// MaxBodyMiB is the largest body limit RunOptions take, in MiB (1 TiB).
const MaxBodyMiB = 1 << 20

// MaxLimit is the largest value RunOptions take for MaxSpans,
// MaxInFlightMiB and MinRateKiB.
const MaxLimit = 1 << 30

// RunOptions say where `ragstat collect` listens and writes.
type RunOptions struct {
	Addr  string // HOST:PORT; DefaultAddr when empty
	Token string // access token; generated when listening off loopback without one
	// GRPCAddr is where OTLP/gRPC is served (HOST:PORT); "" serves none.
	GRPCAddr string
	// MaxBodyMiB limits one request's body, in MiB as sent and after
	// decompression: 1 to MaxBodyMiB.
	MaxBodyMiB int64
	// MaxSpans limits the spans of one request: 1 to MaxLimit.
	MaxSpans int
	// MaxInFlightMiB limits the memory of the requests in flight
	// together, in MiB: 4 times MaxBodyMiB to MaxLimit.
	MaxInFlightMiB int64
	// MinRateKiB is the slowest a body may arrive after ReadGrace, in KiB
	// a second: 1 to MaxLimit.
	MinRateKiB int64
	// Path is the file to write, opened as Mode says once the address is
	// taken; "-" writes to Stdout instead.
	Path   string
	Mode   Mode
	Stdout io.Writer
	Out    io.Writer // messages: where to point the application, the token
	Log    *log.Logger
}

// Run listens, opens the output, tells on opt.Out how to point an
// application at the receiver, and writes what it receives until ctx ends.
func Run(ctx context.Context, opt RunOptions) (Stats, error) {
	if opt.MaxBodyMiB < 1 || opt.MaxBodyMiB > MaxBodyMiB {
		return Stats{}, &diag.OptionError{Option: "max_body_mib", Value: fmt.Sprint(opt.MaxBodyMiB), Msg: fmt.Sprintf(": give 1 to %d", MaxBodyMiB)}
	}
	for _, o := range []struct {
		name string
		v    int64
	}{{"max_spans", int64(opt.MaxSpans)}, {"max_inflight_mib", opt.MaxInFlightMiB}, {"min_rate_kib", opt.MinRateKiB}} {
		if o.v < 1 || o.v > MaxLimit {
			return Stats{}, &diag.OptionError{Option: o.name, Value: fmt.Sprint(o.v), Msg: fmt.Sprintf(": give 1 to %d", MaxLimit)}
		}
	}
	if opt.MaxInFlightMiB < 4*opt.MaxBodyMiB {
		return Stats{}, &diag.OptionError{Option: "max_inflight_mib", Value: fmt.Sprint(opt.MaxInFlightMiB), Msg: fmt.Sprintf(": give at least 4 times the body limit (%d), or the largest request could not be decoded", 4*opt.MaxBodyMiB)}
	}
	addr := opt.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	if opt.Path == "-" && opt.Mode != New {
		return Stats{}, errors.New("--append and --force apply to a file, not to standard output")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return Stats{}, fmt.Errorf("listening on %s: %w", addr, err)
	}
	defer ln.Close()
	var gln net.Listener
	if opt.GRPCAddr != "" {
		if gln, err = net.Listen("tcp", opt.GRPCAddr); err != nil {
			return Stats{}, fmt.Errorf("listening on %s for OTLP/gRPC: %w", opt.GRPCAddr, err)
		}
		defer gln.Close()
	}
	generated := false
	if (!localhttp.IsLoopback(ln.Addr()) || gln != nil && !localhttp.IsLoopback(gln.Addr())) && opt.Token == "" {
		if opt.Token, err = localhttp.RandomToken(); err != nil {
			return Stats{}, err
		}
		generated = true
	}
	sink := Stream(opt.Stdout, "standard output")
	if opt.Path != "-" {
		if sink, err = Create(opt.Path, opt.Mode); err != nil {
			return Stats{}, err
		}
		defer sink.Close()
		if sink.Dropped > 0 {
			fmt.Fprintf(opt.Out, "Removed an unfinished last line of %d bytes from %s (it was never acknowledged).\n", sink.Dropped, opt.Path)
		}
	}
	s, err := NewServer(ln, sink, Options{Token: opt.Token, MaxBody: opt.MaxBodyMiB << 20, MaxSpans: opt.MaxSpans,
		MaxInFlight: opt.MaxInFlightMiB << 20, MinRate: opt.MinRateKiB << 10, Log: opt.Log})
	if err != nil {
		return Stats{}, err
	}
	if !localhttp.IsLoopback(ln.Addr()) {
		fmt.Fprintf(opt.Out, "Listening on %s, off the loopback interface: every request needs the access token.\n", ln.Addr())
		if generated {
			fmt.Fprintf(opt.Out, "Generated access token: %s (give --token to choose one)\n", opt.Token)
		}
		fmt.Fprintln(opt.Out, "Plain HTTP: use it on a network you trust, or through an SSH tunnel.")
	}
	fmt.Fprintf(opt.Out, "Receiving OTLP traces at %s%s, writing to %s\n", s.Endpoint(), TracesPath, sink.Name())
	fmt.Fprintf(opt.Out, "Point the application at it: OTEL_EXPORTER_OTLP_ENDPOINT=%s\n", s.Endpoint())
	if gln != nil {
		fmt.Fprintf(opt.Out, "and OTLP/gRPC at %s (give the application OTEL_EXPORTER_OTLP_PROTOCOL=grpc and this address as its endpoint)\n", gln.Addr())
	}
	if opt.Token != "" {
		fmt.Fprintln(opt.Out, "and give it the token: OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20TOKEN")
	}
	if err := s.serveBoth(ctx, gln); err != nil {
		return s.Stats(), err
	}
	return s.Stats(), sink.Close()
}

// serveBoth serves OTLP/HTTP, and OTLP/gRPC on gln when there is one,
// until ctx ends or either stops.
func (s *Server) serveBoth(ctx context.Context, gln net.Listener) error {
	if gln == nil {
		return s.Serve(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 2)
	go func() { done <- s.Serve(ctx); cancel() }()
	go func() { done <- s.ServeGRPC(ctx, gln); cancel() }()
	return errors.Join(<-done, <-done)
}
