package judgments

import (
	"fmt"
	"testing"

	"github.com/ragstat/ragstat/input"
)

// TestStream checks that Stream hands over, in every format, the
// judgments Read holds, in reading order, and reports the problems of the
// lines as Read does (repeated pairs are New's to find).
func TestStream(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		opt           Options
	}{
		{"trec", "refund 0 policy 3\nlimits 0 limit 2\nrefund 0 noise 0\n", Options{}},
		{"jsonl", `{"query":"refund","item":"policy","grade":3,"spans":["30 days"]}` + "\n" + `{"query":"limits","item":"limit","grade":2}` + "\n", Options{}},
		{"json with an empty query", `{"refund": {"policy": 3, "noise": 0}, "none": {}, "limits": {"limit": 2}}`, Options{Format: input.FormatJSON}},
		{"kept", "refund 0 policy 3\nlimits 0 limit 2\n", Options{Keep: func(q string) bool { return q == "limits" }}},
		{"nothing kept", "refund 0 policy 3\n", Options{Keep: func(string) bool { return false }}},
		{"bad grade", "refund 0 policy 3\nrefund 0 noise 9\nlimits 0 x\n", Options{}},
		{"empty", "", Options{}},
		{"a run", "q Q0 d 1 2.5 tag\n", Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, rerr := read(t, "qrels", tc.content, tc.opt)
			var got []Judgment
			format, serr := Stream(input.FromBytes("qrels", []byte(tc.content)), tc.opt, func(j Judgment) { got = append(got, j) })
			if fmt.Sprint(rerr) != fmt.Sprint(serr) {
				t.Fatalf("Stream: %v\nRead: %v", serr, rerr)
			}
			if rerr != nil {
				return
			}
			if format != set.Format {
				t.Errorf("format %q, want %q", format, set.Format)
			}
			byQuery := map[string][]Judgment{}
			var order []string
			for _, j := range got {
				if byQuery[j.Query] == nil {
					order = append(order, j.Query)
					byQuery[j.Query] = []Judgment{}
				}
				if j.Item != "" {
					byQuery[j.Query] = append(byQuery[j.Query], j)
				}
			}
			if fmt.Sprint(order) != fmt.Sprint(set.IDs()) {
				t.Errorf("queries %v, want %v", order, set.IDs())
			}
			for _, id := range set.IDs() {
				q := set.Query(id)
				var items []string
				var grades []int32
				for _, j := range byQuery[id] {
					items = append(items, j.Item)
					grades = append(grades, int32(j.Grade))
					if fmt.Sprint(j.Spans) != fmt.Sprint(q.Spans(j.Item)) {
						t.Errorf("%s %s: spans %v, want %v", id, j.Item, j.Spans, q.Spans(j.Item))
					}
				}
				if fmt.Sprint(items, grades) != fmt.Sprint(q.Items(), q.Grades(nil)) {
					t.Errorf("%s: %v %v, want %v %v", id, items, grades, q.Items(), q.Grades(nil))
				}
			}
		})
	}
}
