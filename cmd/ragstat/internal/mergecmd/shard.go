// Package mergecmd is the body of ragstat merge: it reads the partial
// results of eval, stages or compare --shard I/N, checks that they are
// every shard of one split once, and merges them into exactly what one
// process computes (settings.Shard says how queries are split).
package mergecmd

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
)

// Cover checks that parts, named by names (file names, for messages), are
// every shard of one split exactly once: the same count everywhere, no
// index twice, none missing.
func Cover(names []string, parts []settings.Shard) error {
	if len(parts) == 0 {
		return fmt.Errorf("no partial results to merge")
	}
	var problems []string
	n := parts[0].Count
	seen := map[int]string{}
	for i, p := range parts {
		switch {
		case p.Count != n:
			problems = append(problems, fmt.Sprintf("%s is shard %s but %s is shard %s: every part must come from one split", names[i], p, names[0], parts[0]))
		case seen[p.Index] != "":
			problems = append(problems, fmt.Sprintf("%s and %s are both shard %s (overlap)", seen[p.Index], names[i], p))
		default:
			seen[p.Index] = names[i]
		}
	}
	if len(problems) == 0 {
		var gaps []string
		for i := range n {
			if seen[i] == "" {
				gaps = append(gaps, settings.Shard{Index: i, Count: n}.String())
			}
		}
		if len(gaps) > 0 {
			problems = append(problems, fmt.Sprintf("shard(s) %s missing (gap): give every shard of the %d", strings.Join(gaps, ", "), n))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("cannot merge: %s", strings.Join(problems, "; "))
	}
	return nil
}

// KindOf says what kind of result a saved JSON result is (eval.KindEval,
// KindStages, ...), from its manifest; "" when it has none.
func KindOf(f *input.File) (string, error) {
	data, err := f.ReadAll()
	if err != nil {
		return "", err
	}
	kind, err := report.KindOf(data)
	if err != nil {
		return "", &diag.Error{File: f.Name, Msg: err.Error(), Hint: "give partial results written with --shard I/N --format json"}
	}
	return kind, nil
}

// OneKind returns the kind of result every part is (KindOf), refusing
// parts of different kinds, named by names, since one merge combines the
// parts of one command.
func OneKind(names, kinds []string) (string, error) {
	for i, k := range kinds {
		if k != kinds[0] {
			return "", fmt.Errorf("cannot merge: %s is %s result but %s is %s result: give the parts of one command", names[0], kindName(kinds[0]), names[i], kindName(k))
		}
	}
	return kinds[0], nil
}

func kindName(k string) string {
	if k == "" {
		return "no ragstat"
	}
	if strings.ContainsAny(k[:1], "aeiou") {
		return "an " + k
	}
	return "a " + k
}
