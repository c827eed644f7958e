package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/stages"
)

// The streaming writers must print exactly what the standard library's
// encoders print. The reference renderers below are the straightforward
// versions built on encoding/json, encoding/csv, text/tabwriter and fmt;
// random results, hostile ids included, must render the same in both.

func TestFixedWidth(t *testing.T) {
	values := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.99995, 0.999949999, 0.9999500001, 9.99995, 9.9999499,
		99999.99995, 1e14, 999999999999999.9, 1e15, 1e23, 1.5e300, -0.00001, -0.00005, -0.00004999, 123.456,
		math.NaN(), math.Inf(1), math.Inf(-1), 0.05, 0.95, 9.5, 99.5, 10.5, 0.45}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		p := math.Pow10(rng.IntN(16))
		values = append(values, (rng.Float64()-0.5)*p*2, p-0.5*math.Pow10(-rng.IntN(6))+(rng.Float64()-0.5)*1e-9)
	}
	for _, v := range values {
		for _, prec := range []int{0, 1, 4} {
			if got, want := fixedWidth(v, prec), len(strconv.FormatFloat(v, 'f', prec, 64)); got != want {
				t.Errorf("fixedWidth(%v, %d) = %d, want %d (%s)", v, prec, got, want, strconv.FormatFloat(v, 'f', prec, 64))
			}
		}
	}
}

// hostile strings: escapes, HTML, separators, invalid UTF-8, wide runes,
// line separators, tabwriter's specials.
var hostile = []string{"", "q1", "a b", " lead", "\tlead", `\.`, `"quoted"`, "a,b", "a\tb", "a\nb", "a\rb", "<&>",
	"\x00\x1f\x7f", "\xff\xfe", "caf\u00e9", "\u2028\u2029", "日本語", "x\vy", "x\fy", "\xffesc\xff", "\\", "e\u0301"}

func randomString(rng *rand.Rand, weird bool) string {
	if weird && rng.IntN(4) == 0 {
		return hostile[rng.IntN(len(hostile))] + strconv.Itoa(rng.IntN(100))
	}
	return "q" + strconv.Itoa(rng.IntN(100000))
}

// randomEval builds a result of runs with random values, some of them
// counts, some queries missing or with unjudged items, under the bounds
// policy or not.
func randomEval(t testing.TB, rng *rand.Rand, queries int, bounds, weird bool) *Eval {
	names := []string{"R@10", "nDCG@10", "AP", "NumRelRet", "P@5", "RR@10", "R@100", "num_ret"}
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	ms, err := metric.ParseAll(names[:1+rng.IntN(len(names))])
	if err != nil {
		t.Fatal(err)
	}
	p := eval.DefaultPolicy()
	if bounds {
		p.Unjudged = eval.UnjudgedBounds
	}
	r := &Eval{Tool: "ragstat", Version: "v<1>&", Policy: p, PerQuery: rng.IntN(4) > 0, CSVComments: rng.IntN(2) == 0,
		Labels: map[string]string{ms[0].Name(): randomString(rng, weird)}}
	if rng.IntN(2) == 0 {
		r.Notes = []string{"a note", randomString(rng, weird)}
	}
	r.Inputs = append(r.Inputs, Input{Role: "judgments", Path: "qrels <x>.txt", Format: "trec", SHA256: "abc"})
	for k := range 1 + rng.IntN(3) {
		res := &eval.Result{Name: randomString(rng, weird) + strconv.Itoa(k), File: randomString(rng, weird), Metrics: ms,
			Unjudged: rng.IntN(3), Folded: rng.IntN(2)}
		if rng.IntN(3) == 0 {
			res.Excluded = []string{randomString(rng, weird)}
			res.Ignored = []string{randomString(rng, weird), "z"}
		}
		n := queries
		if rng.IntN(5) == 0 {
			n = 0
		}
		number := func(m metric.Metric) float64 {
			switch {
			case m.Count:
				return float64(rng.IntN(1200))
			case rng.IntN(5) == 0:
				return float64(rng.IntN(2))
			case rng.IntN(20) == 0:
				return 1 - 5e-5 + (rng.Float64()-0.5)*1e-9
			}
			return rng.Float64()
		}
		for range n {
			row := eval.Row{Query: randomString(rng, weird), Missing: rng.IntN(10) == 0, Unjudged: rng.IntN(3), Folded: rng.IntN(2)}
			for _, m := range ms {
				row.Values = append(row.Values, number(m))
				if bounds {
					row.High = append(row.High, number(m))
				}
			}
			res.Rows = append(res.Rows, row)
		}
		for _, m := range ms {
			res.Mean = append(res.Mean, number(m)+0.5)
			if bounds {
				res.MeanHigh = append(res.MeanHigh, number(m)+0.5)
			}
		}
		r.Results = append(r.Results, res)
		r.Inputs = append(r.Inputs, Input{Role: "run", Path: res.File, Format: "trec"})
	}
	return r
}

func TestRenderMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 150 {
		r := randomEval(t, rng, rng.IntN(30), i%3 == 0, i%2 == 0)
		for _, format := range Formats {
			var got, want bytes.Buffer
			errGot := Render(&got, format, r)
			errWant := referenceRender(&want, format, r)
			if (errGot == nil) != (errWant == nil) {
				t.Fatalf("case %d, %s: error %v, reference %v", i, format, errGot, errWant)
			}
			if got.String() != want.String() {
				t.Fatalf("case %d, %s differs from the reference:\n%s", i, format, diffAt(got.String(), want.String()))
			}
		}
	}
}

// TestRenderUndefined checks that an undefined value (a mean over no
// query) is null in JSON and "-" in every text format, never NaN.
func TestRenderUndefined(t *testing.T) {
	r := randomEval(t, rand.New(rand.NewPCG(7, 8)), 5, false, false)
	r.Results[0].Rows[0].Values[0] = math.NaN()
	r.Results[0].Mean[0] = math.Inf(1)
	for _, format := range Formats {
		var got, want bytes.Buffer
		if err := Render(&got, format, r); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if err := referenceRender(&want, format, r); err != nil {
			t.Fatalf("%s reference: %v", format, err)
		}
		if got.String() != want.String() || strings.Contains(got.String(), "NaN") || strings.Contains(got.String(), "Inf") {
			t.Errorf("%s: %s", format, diffAt(got.String(), want.String()))
		}
		if strings.HasPrefix(format, "json") && !strings.Contains(got.String(), "null") {
			t.Errorf("%s: no null for the undefined values", format)
		}
	}
}

func diffAt(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("at byte %d\n got: %q\nwant: %q", i, got[from:min(len(got), i+100)], want[from:min(len(want), i+100)])
}

// The reference renderers.

func referenceRender(w io.Writer, format string, r *Eval) error {
	switch format {
	case "table":
		return referenceTable(w, r)
	case "json":
		return referenceJSON(w, r)
	case "jsonl":
		return referenceJSONLines(w, r)
	case "csv":
		return referenceDelimited(w, r, ',')
	case "tsv":
		return referenceDelimited(w, r, '\t')
	case "markdown":
		return referenceMarkdown(w, r)
	case "trec":
		return referenceTrec(w, r)
	}
	return fmt.Errorf("unknown format %q", format)
}

func refValue(m metric.Metric, v float64, perQuery bool) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	if m.Count && (perQuery || m.Agg == metric.Sum) && v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

func refCell(m metric.Metric, low, high []float64, i int, perQuery bool) string {
	if high == nil {
		return refValue(m, low[i], perQuery)
	}
	return "[" + refValue(m, low[i], perQuery) + ", " + refValue(m, high[i], perQuery) + "]"
}

func refRows(r *Eval) []row {
	var out []row
	for x := range r.rows() {
		out = append(out, x)
	}
	return out
}

func referenceTable(w io.Writer, r *Eval) error {
	for _, l := range r.policyLines() {
		fmt.Fprintf(w, "# %s\n", l)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "# note: %s\n", idtext.Line(n))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	header := []string{"run", "query"}
	for _, m := range r.metrics() {
		header = append(header, idtext.Show(r.label(m)))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, x := range refRows(r) {
		cells := []string{idtext.Show(x.run), idtext.Show(x.query)}
		for i, m := range r.metrics() {
			cells = append(cells, refCell(m, x.low, x.high, i, x.perQuery))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func referenceMarkdown(w io.Writer, r *Eval) error {
	fmt.Fprintln(w, "| run | query |", strings.Join(r.headers(), " | "), "|")
	fmt.Fprintln(w, "|---|---|"+strings.Repeat("---:|", len(r.metrics())))
	for _, x := range refRows(r) {
		cells := []string{idtext.Markdown(x.run), idtext.Markdown(x.query)}
		if !x.perQuery {
			cells[1] = "**MEAN**"
		}
		for i, m := range r.metrics() {
			cells = append(cells, refCell(m, x.low, x.high, i, x.perQuery))
		}
		fmt.Fprintln(w, "|", strings.Join(cells, " | "), "|")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Policy: "+strings.Join(r.policyLines(), "; ")+".")
	for _, n := range r.Notes {
		fmt.Fprintln(w, "\nNote: "+idtext.Markdown(n))
	}
	return nil
}

func referenceDelimited(w io.Writer, r *Eval, sep rune) error {
	if r.CSVComments {
		for _, l := range r.policyLines() {
			fmt.Fprintf(w, "# %s\n", l)
		}
	}
	cw := csv.NewWriter(w)
	cw.Comma = sep
	header := []string{"run", "scope", "query"}
	if r.CSVComments {
		header = []string{"run", "query"}
	}
	for _, m := range r.metrics() {
		if r.bounds() {
			header = append(header, m.Name()+"_low", m.Name()+"_high")
		} else {
			header = append(header, m.Name())
		}
	}
	if !r.CSVComments {
		header = append(header, "policy")
	}
	cw.Write(header)
	for _, x := range refRows(r) {
		cells := []string{idtext.Cell(x.run), "query", idtext.Cell(x.query)}
		switch {
		case r.CSVComments:
			cells = []string{idtext.Cell(x.run), idtext.Cell(x.query)}
		case !x.perQuery:
			cells = []string{idtext.Cell(x.run), "mean", ""}
		}
		for i, m := range r.metrics() {
			cells = append(cells, refValue(m, x.low[i], x.perQuery))
			if x.high != nil {
				cells = append(cells, refValue(m, x.high[i], x.perQuery))
			}
		}
		if !r.CSVComments {
			cells = append(cells, r.Policy.String())
		}
		cw.Write(cells)
	}
	cw.Flush()
	return cw.Error()
}

func referenceTrec(w io.Writer, r *Eval) error {
	for _, res := range r.Results {
		fmt.Fprintf(w, "%-22s\t%s\t%s\n", "runid", "all", idtext.Show(res.Name))
		for _, x := range refRows(r) {
			if x.run != res.Name {
				continue
			}
			qid := idtext.Show(x.query)
			if !x.perQuery {
				qid = "all"
			} else if x.query == "all" {
				return errors.New("all")
			}
			for i, m := range r.metrics() {
				fmt.Fprintf(w, "%-22s\t%s\t%s\n", m.Name(), qid, refValue(m, x.low[i], x.perQuery))
				if x.high != nil {
					fmt.Fprintf(w, "%-22s\t%s\t%s\n", m.Name()+"_high", qid, refValue(m, x.high[i], x.perQuery))
				}
			}
		}
	}
	return nil
}

func refValues(r *Eval, low, high []float64) map[string]any {
	out := make(map[string]any, len(low))
	for i, m := range r.metrics() {
		if high != nil {
			out[m.Name()] = [2]any{refNumber(low[i]), refNumber(high[i])}
		} else {
			out[m.Name()] = refNumber(low[i])
		}
	}
	return out
}

func refNumber(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func refRun(r *Eval, res *eval.Result) jsonRun {
	jr := jsonRun{Name: res.Name, File: res.File, NumQueries: len(res.Rows), Mean: refValues(r, res.Mean, res.MeanHigh),
		Excluded: res.Excluded, Ignored: res.Ignored, Unjudged: res.Unjudged, Folded: res.Folded}
	for _, q := range res.Rows {
		jr.Queries = append(jr.Queries, jsonQuery{Query: q.Query, Metrics: refValues(r, q.Values, q.High),
			Missing: q.Missing, Unjudged: q.Unjudged, Folded: q.Folded})
	}
	return jr
}

func referenceJSON(w io.Writer, r *Eval) error {
	doc := jsonDocument{Tool: r.Tool, Version: r.Version, Policy: r.jsonPolicy(), Inputs: r.Inputs, Notes: r.Notes,
		Manifest: r.manifest()}
	for _, res := range r.Results {
		doc.Runs = append(doc.Runs, refRun(r, res))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func referenceJSONLines(w io.Writer, r *Eval) error {
	enc := json.NewEncoder(w)
	for _, res := range r.Results {
		jr := refRun(r, res)
		for _, q := range jr.Queries {
			if err := enc.Encode(struct {
				Run string `json:"run"`
				jsonQuery
			}{res.Name, q}); err != nil {
				return err
			}
		}
		if err := enc.Encode(struct {
			Run        string         `json:"run"`
			Mean       map[string]any `json:"mean"`
			NumQueries int            `json:"num_queries"`
			Policy     jsonPolicy     `json:"policy"`
		}{res.Name, jr.Mean, jr.NumQueries, r.jsonPolicy()}); err != nil {
			return err
		}
	}
	return nil
}

// randomStages builds systems whose stages carry random evaluations.
func randomStages(t testing.TB, rng *rand.Rand, weird bool) *Stages {
	ev := randomEval(t, rng, 1+rng.IntN(20), false, weird)
	r := &Stages{Tool: "ragstat", Version: "v1", Policy: ev.Policy, Inputs: ev.Inputs, PerQuery: rng.IntN(2) == 0,
		Notes: ev.Notes, Result: &stages.Result{}}
	if rng.IntN(2) == 0 {
		r.Result.Tokenizer = "o200k_base"
	}
	for s := range 1 + rng.IntN(2) {
		sys := &stages.System{Name: randomString(rng, weird) + strconv.Itoa(s), Configs: []string{`{"model": "<x>"}`}}
		res := ev.Results[0]
		for k, name := range []string{"candidates", "reranked", "context"}[:1+rng.IntN(3)] {
			st := &stages.StageResult{Name: name, K: k * 5, FactQueries: rng.IntN(2), FactCoverage: rng.Float64(),
				MeanLength: rng.Float64() * 50, MaxLength: rng.IntN(50)}
			st.Eval = &eval.Result{Name: res.Name, File: res.File, Metrics: res.Metrics, Mean: res.Mean, Unjudged: k}
			for _, row := range res.Rows {
				row.Returned = rng.IntN(1000)
				st.Eval.Rows = append(st.Eval.Rows, row)
			}
			sys.Stages = append(sys.Stages, st)
		}
		for i, row := range res.Rows {
			if i%2 == 0 {
				sys.Facts = append(sys.Facts, stages.QueryFacts{Query: row.Query, Facts: 3, Supported: []int{3, 2, 1}})
			}
		}
		r.Result.Systems = append(r.Result.Systems, sys)
	}
	return r
}

func TestStagesMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 100 {
		r := randomStages(t, rng, i%2 == 0)
		var got, want bytes.Buffer
		if err := stagesJSON(&got, r); err != nil {
			t.Fatal(err)
		}
		if err := referenceStagesJSON(&want, r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("case %d, json differs from the reference:\n%s", i, diffAt(got.String(), want.String()))
		}
		for _, sys := range r.Result.Systems {
			got.Reset()
			want.Reset()
			out := newWriter(&got)
			if err := stageTable(out, sys, r.PerQuery); err != nil {
				t.Fatal(err)
			}
			out.Flush()
			referenceStageTable(&want, sys, r.PerQuery)
			if got.String() != want.String() {
				t.Fatalf("case %d, stage table differs from the reference:\n%s", i, diffAt(got.String(), want.String()))
			}
		}
	}
}

func referenceStageTable(w io.Writer, sys *stages.System, perQuery bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	ms := sys.Stages[0].Eval.Metrics
	head := []string{"stage", "k", "query"}
	for _, m := range ms {
		head = append(head, m.Name())
	}
	head = append(head, "facts", "mean_len")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	facts := map[string]stages.QueryFacts{}
	for _, qf := range sys.Facts {
		facts[qf.Query] = qf
	}
	for si, s := range sys.Stages {
		if perQuery {
			for _, row := range s.Eval.Rows {
				cells := []string{idtext.Show(s.Name), cutoff(s.K), idtext.Show(row.Query)}
				for i, m := range ms {
					cells = append(cells, refValue(m, row.Values[i], true))
				}
				covered := ""
				if qf, ok := facts[row.Query]; ok {
					covered = fmt.Sprintf("%d/%d", qf.Supported[si], qf.Facts)
				}
				fmt.Fprintln(tw, strings.Join(append(cells, covered, strconv.Itoa(row.Returned)), "\t"))
			}
		}
		cells := []string{idtext.Show(s.Name), cutoff(s.K), "MEAN"}
		for i, m := range ms {
			cells = append(cells, refValue(m, s.Eval.Mean[i], false))
		}
		facts := "-"
		if s.FactQueries > 0 {
			facts = strconv.FormatFloat(s.FactCoverage, 'f', 4, 64)
		}
		cells = append(cells, facts, strconv.FormatFloat(s.MeanLength, 'f', 1, 64))
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

func referenceStagesJSON(w io.Writer, r *Stages) error {
	h := r.header()
	doc := stagesDoc{Tool: r.Tool, Version: r.Version, Kind: eval.KindStages, Policy: h.jsonPolicy(), Inputs: r.Inputs,
		Result: &stagesResult{Tokenizer: r.Result.Tokenizer}, Notes: r.Notes, Manifest: r.manifest()}
	for _, sys := range r.Result.Systems {
		js := stagesSys{System: sys}
		for _, s := range sys.Stages {
			js.Stages = append(js.Stages, stageJSON{StageResult: s, Run: refRun(h, s.Eval)})
		}
		doc.Result.Systems = append(doc.Result.Systems, js)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
