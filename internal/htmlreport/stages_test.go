package htmlreport

import (
	"bytes"
	"slices"
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
		"fact clearance: Clearance items are final sale</td>",
		"OVER BUDGET</span></p><ul><li>api-limits: 275 tokens, budget 120, 155 over</li>",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	// Every kind of invalid evidence the systems have is a row of the
	// validity table.
	rows := strings.Count(page, `<tr class="bad"><td>out of scope</td>`) + strings.Count(page, `<tr class=""><td>out of scope</td>`) +
		strings.Count(page, "<tr><td>stale</td>") + strings.Count(page, "<tr><td>revision conflict</td>")
	want, kinds := 0, [3]int{}
	for _, s := range saved.Result.Systems {
		want += len(s.Validity.OutOfScope) + len(s.Validity.Stale) + len(s.Validity.Conflicts)
		kinds[0], kinds[1], kinds[2] = kinds[0]+len(s.Validity.OutOfScope), kinds[1]+len(s.Validity.Stale), kinds[2]+len(s.Validity.Conflicts)
	}
	if rows != want || slices.Contains(kinds[:], 0) {
		t.Errorf("%d validity rows, want %d (out of scope, stale, conflicts: %v)", rows, want, kinds)
	}
	for _, bad := range []string{"http://", "https://", "src="} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("page refers outside itself: %q", bad)
		}
	}
}
