package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/demo"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/tokenize"
)

// TestStages renders the demo's traced pipelines after a JSON round trip,
// as `ragstat report` does.
func TestStages(t *testing.T) {
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := demo.Pipeline(tok)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := report.RenderStages(&js, "json", rep); err != nil {
		t.Fatal(err)
	}
	saved, err := report.ReadStages(input.FromBytes("stages.json", js.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := report.RenderStages(&again, "json", saved.Stages); err != nil {
		t.Fatal(err)
	}
	if again.String() != js.String() {
		t.Fatal("stages JSON does not survive a round trip")
	}
	var out bytes.Buffer
	if err := Stages(&out, saved); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, w := range []string{
		"Permission violation: 1 out-of-scope item(s) reached the generator",
		`aria-label="where relevant evidence stopped, v1"`,
		"cut between candidates and reranked",
		"truncated (span lost)",
		"OVER BUDGET</span></p><ul><li>api-limits: 275 tokens, budget 120, 155 over</li>",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	for _, bad := range []string{"http://", "https://", "src="} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("page refers outside itself: %q", bad)
		}
	}
}
