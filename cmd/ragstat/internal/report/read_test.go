package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
)

// TestReadRoundTrip writes the demo's evaluation as JSON, reads it back and
// writes it again: the two documents are the same bytes.
func TestReadRoundTrip(t *testing.T) {
	for _, unjudged := range []eval.Unjudged{eval.UnjudgedError, eval.UnjudgedBounds} {
		r, err := demo.Evaluate()
		if err != nil {
			t.Fatal(err)
		}
		r.Policy.Unjudged = unjudged
		if unjudged == eval.UnjudgedBounds {
			for _, res := range r.Results {
				res.MeanHigh = res.Mean
				for i := range res.Rows {
					res.Rows[i].High = res.Rows[i].Values
				}
			}
		}
		var first, second bytes.Buffer
		if err := report.Render(&first, "json", r); err != nil {
			t.Fatal(err)
		}
		saved, err := report.Read(input.FromBytes("saved.json", first.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", unjudged, err)
		}
		if err := report.Render(&second, "json", saved.Eval); err != nil {
			t.Fatal(err)
		}
		if first.String() != second.String() {
			t.Errorf("%s: read back differs:\n%s\n---\n%s", unjudged, first.String(), second.String())
		}
		if saved.Manifest.Queries.N != 3 || saved.Manifest.Policy.Unjudged != unjudged {
			t.Errorf("%s: manifest = %+v", unjudged, saved.Manifest)
		}
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"not JSON", `runs:`, "bad.json: invalid JSON"},
		{"no manifest", `{"tool":"ragstat"}`, "no eval manifest"},
		{"unknown field", `{"colour":1}`, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := report.Read(input.FromBytes("bad.json", []byte(tt.doc)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
