package main

import (
	"fmt"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/tokenize"
)

type demoCmd struct {
	Write     string `placeholder:"DIR" help:"Write the example's files into DIR instead."`
	Generator string `placeholder:"ADDR" help:"Serve the demo's stand-in generator as an OpenAI-compatible endpoint on ADDR (loopback, e.g. 127.0.0.1:8089) until interrupted, to try ragstat intervene."`
	Force     bool   `help:"With --write, replace files that exist."`
}

func (c *demoCmd) Run(e *env) error {
	switch {
	case c.Write != "":
		if err := demo.Write(c.Write, c.Force); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote the example files to %s\n", c.Write)
		return nil
	case c.Generator != "":
		ctx, stop := interrupted()
		defer stop()
		return demo.Serve(ctx, c.Generator, func(url string) {
			fmt.Fprintf(e.stderr, "ragstat: the demo's generator answers at %s (Ctrl-C stops it)\n", url)
		})
	}
	tok, err := tokenize.New("o200k_base")
	if err == nil {
		err = demo.Tour(e.stdout, tok)
	}
	if err != nil {
		return internal(err)
	}
	return nil
}
