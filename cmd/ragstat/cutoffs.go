package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"
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
	name, k, staged := strings.Cut(s, "=")
	if !staged {
		k = name
	}
	n, err := strconv.Atoi(strings.TrimSpace(k))
	if err != nil || n <= 0 {
		return fmt.Errorf("-k %q: the cutoff must be a positive integer", s)
	}
	if !staged {
		c.Default = n
		return nil
	}
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("-k %q: name the stage, as in reranked=10", s)
	}
	if c.ByStage == nil {
		c.ByStage = map[string]int{}
	}
	c.ByStage[name] = n
	return nil
}
