package main

import (
	"fmt"

	"github.com/ragstat/ragstat/demo"
	"github.com/ragstat/ragstat/report"
)

type demoCmd struct {
	Write string `placeholder:"DIR" help:"Write the example's files into DIR instead."`
}

func (c *demoCmd) Run(e *env) error {
	if c.Write != "" {
		if err := demo.Write(c.Write); err != nil {
			return internal(err)
		}
		fmt.Fprintf(e.stdout, "wrote %v to %s\n", demo.Files, c.Write)
		return nil
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
	fmt.Fprintln(e.stdout, "\nTry next:")
	for _, s := range demo.Next {
		fmt.Fprintln(e.stdout, "  "+s)
	}
	return nil
}
