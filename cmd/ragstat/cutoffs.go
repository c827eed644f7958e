package main

import (
	"fmt"

	"github.com/alecthomas/kong"

	"github.com/ragstat/ragstat/stages"
)

// cutoffs is the -k flag: `-k 10` sets the cutoff of the default metrics;
// `--k reranked=10` (stages) sets one stage's cutoff. It may repeat.
type cutoffs struct {
	Default int
	ByStage map[string]int
}

// Decode reads one occurrence of the flag.
func (c *cutoffs) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("cutoff", &s); err != nil {
		return err
	}
	stage, k, err := stages.ParseCutoff(s)
	switch {
	case err != nil:
		return fmt.Errorf("-k %q: %w", s, err)
	case stage == "":
		c.Default = k
	default:
		if c.ByStage == nil {
			c.ByStage = map[string]int{}
		}
		c.ByStage[stage] = k
	}
	return nil
}
