package collect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // exporters may compress
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/localhttp"
)

// DefaultGRPCAddr is the standard OTLP/gRPC port on the loopback
// interface.
const DefaultGRPCAddr = "127.0.0.1:4317"

// grpcExportMethod is the OTLP/gRPC trace export, as exporters call it.
const grpcExportMethod = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"

// The OTLP/gRPC trace service. pdata's ptraceotlp.RegisterGRPCServer
// decodes a request before any code of the receiver runs, which would
// materialise a request of millions of empty spans before it could be
// refused; this service takes the request's bytes instead, so they go
// through the same checks as an OTLP/HTTP body (spans and messages
// counted on the wire, memory reserved) before pdata decodes them.
var traceService = grpc.ServiceDesc{
	ServiceName: "opentelemetry.proto.collector.trace.v1.TraceService",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Export",
		Handler: func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			var req rawMessage
			if err := dec(&req); err != nil { // gRPC read, decompressed and size-checked the message here
				return nil, srv.(*Server).unreadGRPC(err)
			}
			return srv.(*Server).exportGRPC(ctx, req)
		},
	}},
	Metadata: "opentelemetry/proto/collector/trace/v1/trace_service.proto",
}

// rawMessage is a protobuf message as bytes.
type rawMessage []byte

// rawCodec passes messages through as bytes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(*rawMessage)
	if !ok {
		return nil, fmt.Errorf("collect: cannot encode a %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(*m)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(*rawMessage)
	if !ok {
		return fmt.Errorf("collect: cannot decode into a %T", v)
	}
	*m = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

// ServeGRPC serves OTLP/gRPC on ln until ctx ends, then lets the requests
// in flight finish (30 s at most). A request is at most MaxBody bytes once
// decompressed, and goes through the limits an OTLP/HTTP one does.
func (s *Server) ServeGRPC(ctx context.Context, ln net.Listener) error {
	if !localhttp.IsLoopback(ln.Addr()) && s.opt.Token == "" {
		return fmt.Errorf("listening on %s, off the loopback interface, needs an access token", ln.Addr())
	}
	srv := grpc.NewServer(
		grpc.ForceServerCodecV2(rawCodec{}),
		grpc.MaxRecvMsgSize(int(min(s.opt.MaxBody, 1<<31-1))),
		grpc.MaxConcurrentStreams(64),
		grpc.ConnectionTimeout(10*time.Second),
		grpc.UnknownServiceHandler(s.unknownGRPC),
	)
	srv.RegisterService(&traceService, s)
	return localhttp.Until(ctx, func() error { return srv.Serve(ln) }, func(served <-chan error) error {
		stopped := make(chan struct{})
		go func() { srv.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(30 * time.Second):
			srv.Stop()
		}
		if err := <-served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			return err
		}
		return nil
	})
}

// exportGRPC is one OTLP/gRPC export.
func (s *Server) exportGRPC(ctx context.Context, req rawMessage) (*rawMessage, error) {
	size := int64(len(req))
	ref := s.authorizeGRPC(ctx)
	if ref == nil {
		// The request was read whole before this runs: reserve it now.
		if !s.mem.acquire(ctx, size, time.Now().Add(s.wait)) {
			ref = s.busy()
		} else {
			defer s.mem.release(size)
			_, ref = s.export(ctx, req, size, false, protoEncoding)
		}
	}
	if ref != nil {
		s.note(ref, "gRPC "+grpcExportMethod, "application/grpc", size)
		return nil, status.Error(grpcCode(ref.code), ref.msg)
	}
	return &rawMessage{}, nil // an empty ExportTraceServiceResponse
}

// unreadGRPC counts and logs a request gRPC could not read: over the body
// limit, or cut short.
func (s *Server) unreadGRPC(err error) error {
	ref := &refusal{http.StatusBadRequest, Malformed, err.Error()}
	if status.Code(err) == codes.ResourceExhausted {
		ref = &refusal{http.StatusRequestEntityTooLarge, TooLarge, fmt.Sprintf("%v (--max-body-mib)", err)}
	}
	s.note(ref, "gRPC "+grpcExportMethod, "application/grpc", -1)
	return err
}

// unknownGRPC answers a call of another service, such as an application's
// metrics or logs.
func (s *Server) unknownGRPC(_ any, stream grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(stream)
	ref := &refusal{http.StatusNotFound, NotFound, method + ": this receiver takes traces only (" + grpcExportMethod + "); turn the application's other exporters off (OTEL_METRICS_EXPORTER=none, OTEL_LOGS_EXPORTER=none)"}
	s.note(ref, "gRPC "+method, "application/grpc", -1)
	return status.Error(codes.Unimplemented, ref.msg)
}

func (s *Server) authorizeGRPC(ctx context.Context) *refusal {
	if s.opt.Token == "" {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, h := range md.Get("authorization") {
		if s.authorized(h) {
			return nil
		}
	}
	return &refusal{http.StatusUnauthorized, Unauthorized, "access token missing or wrong: send the header authorization: Bearer TOKEN (OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20TOKEN)"}
}

// grpcCode is the gRPC status for an HTTP one, as the OTLP specification
// pairs them: 503 is retried, the others are not.
func grpcCode(code int) codes.Code {
	switch code {
	case http.StatusServiceUnavailable:
		return codes.Unavailable
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusRequestEntityTooLarge:
		return codes.ResourceExhausted
	case http.StatusBadRequest:
		return codes.InvalidArgument
	}
	return codes.Internal
}
