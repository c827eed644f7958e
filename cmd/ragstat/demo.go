package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ragstat/ragstat/internal/demo"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/tokenize"
)

type demoCmd struct {
	Write     string `placeholder:"DIR" help:"Write the example's files into DIR instead."`
	Generator string `placeholder:"ADDR" help:"Serve the demo's stand-in generator as an OpenAI-compatible endpoint on ADDR (loopback, e.g. 127.0.0.1:8089) until interrupted, to try ragstat intervene."`
	Force     bool   `help:"With --write, replace files that exist."`
}

func (c *demoCmd) Run(e *env) error {
	if c.Write != "" {
		if err := demo.Write(c.Write, c.Force); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote the example files to %s\n", c.Write)
		return nil
	}
	if c.Generator != "" {
		return c.serve(e)
	}
	rep, err := demo.Evaluate()
	if err != nil {
		return internal(err)
	}
	fmt.Fprintln(e.stdout, "The source document's example: three queries, two rankings, k=3, strict policy.")
	fmt.Fprintln(e.stdout)
	if err := report.Render(e.stdout, "table", rep); err != nil {
		return internal(err)
	}
	fmt.Fprintln(e.stdout)
	for _, s := range demo.Story(rep.Results[0], rep.Results[1]) {
		fmt.Fprintln(e.stdout, "- "+s)
	}
	if err := c.pipeline(e); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "\nTry next:")
	for _, s := range demo.Next {
		fmt.Fprintln(e.stdout, "  "+s)
	}
	return nil
}

// pipeline prints the second part: two pipelines evaluated stage by stage.
func (c *demoCmd) pipeline(e *env) error {
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		return internal(err)
	}
	rep, err := demo.Pipeline(tok)
	if err != nil {
		return internal(err)
	}
	fmt.Fprintln(e.stdout, "\nPart 2: the evidence boundary. Two pipelines (v1, v2) traced stage by stage on a small")
	fmt.Fprintln(e.stdout, "multi-tenant support corpus (ragstat stages, o200k_base token counts).")
	for _, s := range demo.PipelineStory(rep.Result) {
		fmt.Fprintln(e.stdout, "- "+s)
	}
	fmt.Fprintln(e.stdout, "\nThe full report: ragstat demo --write ex/ && ragstat stages -j ex/pipeline/judgments.jsonl \\")
	fmt.Fprintln(e.stdout, "  --topics ex/pipeline/topics.jsonl --corpus ex/pipeline/corpus.jsonl --tokenizer o200k_base ex/pipeline/traces-*.jsonl")
	res, err := demo.Intervention(tok)
	if err != nil {
		return internal(err)
	}
	fmt.Fprintln(e.stdout, "\nPart 3: is it the retrieval or the generator? Each failing query rerun by the same generator")
	fmt.Fprintln(e.stdout, "(a deterministic stand-in) with the same prompt, the retrieved context replaced by the verified")
	fmt.Fprintln(e.stdout, "evidence of every required fact (ragstat intervene).")
	for _, s := range demo.InterventionStory(res) {
		fmt.Fprintln(e.stdout, "- "+s)
	}
	return nil
}

// serve runs the demo's generator until interrupted.
func (c *demoCmd) serve(e *env) error {
	host, _, err := net.SplitHostPort(c.Generator)
	if err != nil {
		return fmt.Errorf("--generator %s: give HOST:PORT", c.Generator)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--generator %s: the demo's generator listens on loopback only", c.Generator)
	}
	ln, err := net.Listen("tcp", c.Generator)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "ragstat: the demo's generator answers at http://%s/v1 (Ctrl-C stops it)\n", ln.Addr())
	srv := &http.Server{Handler: demo.ReaderHandler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
