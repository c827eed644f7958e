package demo

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/tokenize"
)

// Tour writes what `ragstat demo` tells: the source document's example
// evaluated and read, two pipelines evaluated stage by stage, the
// intervention on their failing queries, and the commands to try next.
// tok counts the pipelines' tokens (o200k_base in the text).
func Tour(w io.Writer, tok tokenize.Tokenizer) error {
	rep, err := Evaluate()
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("A worked example: three queries, two rankings, k=3, strict policy; the mean of RR@3 is MRR@3.\n\n")
	if err := report.Render(&b, "table", rep); err != nil {
		return err
	}
	b.WriteString("\n")
	list(&b, "- ", Story(rep.Results[0], rep.Results[1]))
	pipe, err := Pipeline(tok)
	if err != nil {
		return err
	}
	b.WriteString("\nPart 2: the evidence boundary. Two pipelines (v1, v2) traced stage by stage on a small\n" +
		"multi-tenant support corpus (ragstat stages, o200k_base token counts).\n")
	list(&b, "- ", PipelineStory(pipe.Result))
	b.WriteString("\nThe full report: ragstat demo --write ex/ && ragstat stages -j ex/pipeline/judgments.jsonl \\\n" +
		"  --topics ex/pipeline/topics.jsonl --corpus ex/pipeline/corpus.jsonl --tokenizer o200k_base ex/pipeline/traces-*.jsonl\n")
	res, err := Intervention(tok)
	if err != nil {
		return err
	}
	b.WriteString("\nPart 3: is it the retrieval or the generator? Each failing query rerun by the same generator\n" +
		"(a deterministic stand-in) with the same prompt, the retrieved context replaced by the verified\n" +
		"evidence of every required fact (ragstat intervene).\n")
	list(&b, "- ", InterventionStory(res))
	b.WriteString("\nTry next, with the ragstat command on your PATH: from a clone, `go install ./cmd/ragstat`\n" +
		"(into $(go env GOPATH)/bin) or `go build -o ragstat ./cmd/ragstat` (then ./ragstat):\n")
	list(&b, "  ", Next)
	_, err = io.WriteString(w, b.String())
	return err
}

func list(b *strings.Builder, prefix string, lines []string) {
	for _, l := range lines {
		b.WriteString(prefix + l + "\n")
	}
}

// Serve serves the demo's generator (ReaderHandler) on addr, a loopback
// HOST:PORT, until ctx ends; ready is told its base URL once it listens.
func Serve(ctx context.Context, addr string, ready func(url string)) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &diag.OptionError{Option: "generator", Value: addr, Msg: ": give HOST:PORT"}
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return &diag.OptionError{Option: "generator", Value: addr, Msg: ": the demo's generator listens on loopback only"}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ready("http://" + ln.Addr().String() + "/v1")
	srv := &http.Server{Handler: ReaderHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
