package audit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
)

// Rule is one gate on an audit: "informative<N" fails when fewer than N
// queries are informative; "REASON>X" (leakage>0.3) when more than a share
// X of the queries carry the reason. The operators are <, <=, > and >=.
type Rule struct {
	Name  string  // "informative" or a reason
	Op    string  // <, <=, > or >=
	Value float64 // a count for informative, a share in [0, 1] for a reason
	text  string
}

// String is the rule as written.
func (r Rule) String() string { return r.text }

// ParseRule reads one rule.
func ParseRule(s string) (Rule, error) {
	text := strings.TrimSpace(s)
	i := strings.IndexAny(text, "<>")
	if i <= 0 {
		return Rule{}, &diag.OptionError{Option: "fail_on", Value: strconv.Quote(s), Msg: "is not NAME<VALUE or NAME>VALUE, e.g. informative<30 or leakage>0.3"}
	}
	r := Rule{Name: strings.TrimSpace(text[:i]), Op: text[i : i+1], text: text}
	rest := text[i+1:]
	if strings.HasPrefix(rest, "=") {
		r.Op, rest = r.Op+"=", rest[1:]
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Rule{}, &diag.OptionError{Option: "fail_on", Value: strconv.Quote(s), Msg: "needs a finite number after " + r.Op}
	}
	r.Value = v
	switch {
	case r.Name == "informative":
		if v < 0 {
			return Rule{}, &diag.OptionError{Option: "fail_on", Value: strconv.Quote(s), Msg: "counts queries: give 0 or more"}
		}
	case slices.Contains(Reasons, r.Name):
		if v < 0 || v > 1 {
			return Rule{}, &diag.OptionError{Option: "fail_on", Value: strconv.Quote(s), Msg: "compares a share of the queries: give a value in [0, 1]"}
		}
	default:
		return Rule{}, &diag.OptionError{Option: "fail_on", Value: strconv.Quote(s), Msg: "names neither informative nor a reason (" + strings.Join(Reasons, ", ") + ")"}
	}
	return r, nil
}

// Gate returns a line for every rule the report meets (none: it passed).
func (rep *Report) Gate(rules []Rule) []string {
	var out []string
	for _, r := range rules {
		var got float64
		what := ""
		if r.Name == "informative" {
			got = float64(rep.Summary.Informative)
			what = fmt.Sprintf("%d of %d queries are informative", rep.Summary.Informative, rep.Summary.Queries)
		} else {
			for _, c := range rep.Summary.Reasons {
				if c.Reason == r.Name {
					got = c.Share
					what = fmt.Sprintf("%s flags %d of %d queries (%.4f)", r.Name, c.Queries, rep.Summary.Queries, c.Share)
				}
			}
		}
		met := map[string]bool{"<": got < r.Value, "<=": got <= r.Value, ">": got > r.Value, ">=": got >= r.Value}[r.Op]
		if met {
			out = append(out, fmt.Sprintf("%s: %s", r.text, what))
		}
	}
	return out
}
