package collect

import (
	"bytes"
	"context"
	"log"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// grpcClient serves s over OTLP/gRPC on loopback and returns a client of
// it, made with pdata's own OTLP/gRPC client, and its connection.
func grpcClient(t *testing.T, s *Server) (ptraceotlp.GRPCClient, *grpc.ClientConn) {
	t.Helper()
	ln := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeGRPC(ctx, ln) }()
	cc, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cc.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeGRPC: %v", err)
		}
	})
	return ptraceotlp.NewGRPCClient(cc), cc
}

func exportRequest(t *testing.T, body []byte) ptraceotlp.ExportRequest {
	t.Helper()
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(body); err != nil {
		t.Fatal(err)
	}
	return req
}

// TestGRPC exports over OTLP/gRPC, plain and gzip-compressed, and checks
// that what is written is what was sent; then the limits and the token
// refuse requests with the gRPC status the OTLP specification pairs with
// them. (gRPC itself refuses a message over the body limit, compressed or
// not, before the receiver sees it.)
func TestGRPC(t *testing.T) {
	var logs bytes.Buffer
	s, path := newServer(t, loopback, Options{Token: "s3cret", MaxBody: 1 << 20, MaxSpans: 1000, MaxInFlight: 4 << 20, Log: log.New(&logs, "", 0)})
	client, cc := grpcClient(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	authed := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer s3cret")
	want := spans("grpc", 3)
	for _, opts := range [][]grpc.CallOption{nil, {grpc.UseCompressor(gzip.Name)}} {
		if _, err := client.Export(authed, ptraceotlp.NewExportRequestFromTraces(want), opts...); err != nil {
			t.Fatal(err)
		}
	}
	got := lines(t, path)
	if len(got) != 2 {
		t.Fatalf("%d lines", len(got))
	}
	for _, td := range got {
		if !bytes.Equal(jsonBody(t, td), jsonBody(t, want)) {
			t.Errorf("line differs from what was sent:\n%s\n%s", jsonBody(t, td), jsonBody(t, want))
		}
	}
	for _, c := range []struct {
		name string
		ctx  context.Context
		req  ptraceotlp.ExportRequest
		opts []grpc.CallOption
		code codes.Code
		msg  string
	}{
		{"no token", ctx, ptraceotlp.NewExportRequestFromTraces(want), nil, codes.Unauthenticated, "access token"},
		{"too many spans", authed, exportRequest(t, emptySpans(1001)), nil, codes.ResourceExhausted, "more than 1000 spans in one request (--max-spans)"},
		{"too large", authed, exportRequest(t, emptySpans(600<<10)), nil, codes.ResourceExhausted, "larger than max"},
		{"decompression bomb", authed, exportRequest(t, emptySpans(600<<10)), []grpc.CallOption{grpc.UseCompressor(gzip.Name)}, codes.ResourceExhausted, "larger than max"},
		{"too many messages", authed, exportRequest(t, emptyAttributes(200<<10)), nil, codes.ResourceExhausted, "(--max-inflight-mib)"},
	} {
		_, err := client.Export(c.ctx, c.req, c.opts...)
		if st, _ := status.FromError(err); st.Code() != c.code || !strings.Contains(st.Message(), c.msg) {
			t.Errorf("%s: %v, want %s with %q", c.name, err, c.code, c.msg)
		}
	}
	if len(lines(t, path)) != 2 {
		t.Error("a refused request was written")
	}
	st := s.Stats()
	if st.Requests != 2 || st.Spans != 6 || st.ByReason[Unauthorized] != 1 || st.ByReason[TooManySpans] != 1 || st.ByReason[OverMemory] != 1 || st.ByReason[TooLarge] != 2 {
		t.Errorf("stats %+v", st)
	}
	if !strings.Contains(logs.String(), "refused a request (too many spans): gRPC "+grpcExportMethod+`, Content-Type "application/grpc"`) {
		t.Errorf("logged:\n%s", logs.String())
	}
	if _, err := s.exportGRPC(ctx, rawMessage{0xff}); err == nil {
		t.Error("a malformed request accepted")
	}
	// Another service, as from an application exporting its metrics too.
	err := cc.Invoke(authed, "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", &rawMessage{}, &rawMessage{}, grpc.ForceCodecV2(rawCodec{}))
	if st, _ := status.FromError(err); st.Code() != codes.Unimplemented || !strings.Contains(st.Message(), "takes traces only") {
		t.Errorf("metrics: %v", err)
	}
	for _, want := range []string{"refused a request (too large): gRPC " + grpcExportMethod, "refused a request (wrong path): gRPC /opentelemetry.proto.collector.metrics.v1.MetricsService/Export"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("not logged: %q\n%s", want, logs.String())
		}
	}
}
