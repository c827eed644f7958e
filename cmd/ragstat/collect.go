package main

import (
	"fmt"
	"log"

	"github.com/ragstat/ragstat/internal/collect"
)

type collectCmd struct {
	Addr       string `default:"127.0.0.1:4318" placeholder:"HOST:PORT" help:"Where to listen (default: ${default}, the OTLP/HTTP port on loopback)."`
	Out        string `short:"o" required:"" placeholder:"FILE" help:"Where to write one OTLP/JSON line per request (- for standard output). An existing file needs --append or --force."`
	Append     bool   `xor:"mode" help:"Add to an existing --out file (a last line cut short by a killed receiver is removed first)."`
	Force      bool   `xor:"mode" help:"Replace an existing --out file."`
	Token      string `env:"RAGSTAT_COLLECT_TOKEN" placeholder:"TOKEN" help:"Access token (Authorization: Bearer) every request must carry; required off loopback (one is generated when missing)."`
	MaxBodyMiB int64  `name:"max-body-mib" default:"64" placeholder:"MIB" help:"Largest request body accepted, in MiB once decompressed (default ${default})."`
}

func (c *collectCmd) Run(e *env) error {
	if c.MaxBodyMiB <= 0 || c.MaxBodyMiB > 1<<20 {
		return fmt.Errorf("--max-body-mib %d: give 1 to %d", c.MaxBodyMiB, 1<<20)
	}
	mode := collect.New
	switch {
	case c.Append:
		mode = collect.Append
	case c.Force:
		mode = collect.Replace
	}
	ctx, stop := interrupted()
	defer stop()
	st, err := collect.Run(ctx, collect.RunOptions{Addr: c.Addr, Token: c.Token, MaxBody: c.MaxBodyMiB << 20,
		Path: c.Out, Mode: mode, Stdout: e.stdout, Out: e.stderr, Log: log.New(e.stderr, "ragstat collect: ", log.LstdFlags)})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "ragstat collect: stopped; %d requests (%d spans) written to %s, %d refused\n", st.Requests, st.Spans, c.Out, st.Refused)
	return nil
}
