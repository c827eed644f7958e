package intervene_test

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/intervene"
	"github.com/ragstat/ragstat/trace"
)

// TestGather: traces scanned in any order come back by file, line,
// system and query.
func TestGather(t *testing.T) {
	in := []*trace.Trace{{File: "b", Line: 1}, {File: "a", Line: 2}, {File: "a", Line: 1, Query: "q2"}, {File: "a", Line: 1, Query: "q1"}}
	got, err := intervene.Gather(func(fn func(*trace.Trace) error) error {
		for _, t := range in {
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, tr := range got {
		order = append(order, tr.File+tr.Query)
	}
	if strings.Join(order, " ") != "aq1 aq2 a b" {
		t.Errorf("order %v", order)
	}
}
