package split

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// drawTopics draws topics with families, source tags and slice tags; some
// have no family or no source.
func drawTopics(t *rapid.T) []*topics.Topic {
	n := rapid.IntRange(1, 60).Draw(t, "topics")
	var ts []*topics.Topic
	for i := range n {
		tp := &topics.Topic{ID: fmt.Sprintf("t%d", i), Answerable: true}
		if f := rapid.IntRange(-1, 12).Draw(t, "family"); f >= 0 {
			tp.Family = fmt.Sprintf("fam%d", f)
		}
		for range rapid.IntRange(0, 2).Draw(t, "sources") {
			tp.Tags = append(tp.Tags, fmt.Sprintf("source=%d", rapid.IntRange(0, 8).Draw(t, "source")))
		}
		for range rapid.IntRange(0, 2).Draw(t, "slices") {
			tp.Tags = append(tp.Tags, rapid.SampledFrom([]string{"billing", "paraphrase", "recent", "exact-id"}).Draw(t, "slice"))
		}
		ts = append(ts, tp)
	}
	return ts
}

func drawOptions(t *rapid.T) Options {
	by := GroupBy{}
	if rapid.Bool().Draw(t, "by tag") {
		by.TagPrefix = "source="
	}
	return Options{HeldOut: rapid.Float64Range(0.05, 0.95).Draw(t, "held out"), Seed: rapid.Uint64().Draw(t, "seed"), GroupBy: by}
}

// TestProperties: groups never straddle the sides, every topic lands on
// exactly one side, the held-out count is within one group of its target,
// and the same seed gives the same split.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ts := drawTopics(t)
		opt := drawOptions(t)
		r, err := Split(ts, opt)
		if err != nil {
			t.Fatal(err)
		}
		side := map[string]bool{}
		for _, tp := range ts {
			for _, k := range opt.GroupBy.keys(tp) {
				if held, ok := side[k]; ok && held != r.IsHeldOut(tp.ID) {
					t.Fatalf("group %q straddles the sides", k)
				}
				side[k] = r.IsHeldOut(tp.ID)
			}
		}
		if len(r.Dev)+len(r.HeldOut) != len(ts) || slices.ContainsFunc(r.HeldOut, func(tp *topics.Topic) bool { return !r.IsHeldOut(tp.ID) }) {
			t.Fatalf("sides %d + %d for %d topics", len(r.Dev), len(r.HeldOut), len(ts))
		}
		largest := len(slices.MaxFunc(group(ts, opt.GroupBy), func(a, b []*topics.Topic) int { return len(a) - len(b) }))
		if off := math.Abs(float64(len(r.HeldOut)) - opt.HeldOut*float64(len(ts))); off > float64(largest) {
			t.Fatalf("held out %d of %d, target %g: off by %g, more than the largest group (%d)", len(r.HeldOut), len(ts), opt.HeldOut, off, largest)
		}
		again, _ := Split(ts, opt)
		if !slices.Equal(ids(again.HeldOut), ids(r.HeldOut)) {
			t.Fatalf("same seed, different split: %v and %v", ids(again.HeldOut), ids(r.HeldOut))
		}
	})
}

func ids(ts []*topics.Topic) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// TestBalancesSlices: with singleton groups, every slice's held-out share
// is close to the target.
func TestBalancesSlices(t *testing.T) {
	var ts []*topics.Topic
	for i := range 100 {
		tags := []string{[]string{"billing", "limits", "restore", "recent"}[i%4]}
		if i%3 == 0 {
			tags = append(tags, "paraphrase")
		}
		ts = append(ts, &topics.Topic{ID: fmt.Sprintf("t%d", i), Tags: tags})
	}
	for seed := range uint64(5) {
		r, err := Split(ts, Options{HeldOut: 0.3, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.HeldOut) != 30 {
			t.Errorf("seed %d: %d held out, want 30", seed, len(r.HeldOut))
		}
		for _, s := range r.Slices {
			if want := 0.3 * float64(s.Dev+s.HeldOut); math.Abs(float64(s.HeldOut)-want) > 1 {
				t.Errorf("seed %d: slice %s holds out %d of %d", seed, s.Tag, s.HeldOut, s.Dev+s.HeldOut)
			}
		}
	}
}

func TestParseGroupBy(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"family", "family", ""}, {"tag:source=", "tag:source=", ""},
		{"tag:", "", "use family, or tag:PREFIX"}, {"source", "", "use family, or tag:PREFIX"},
	} {
		g, err := ParseGroupBy(tc.in)
		if tc.err != "" {
			if oe, ok := errors.AsType[*diag.OptionError](err); !ok || oe.Option != "group_by" || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || g.String() != tc.want {
			t.Errorf("%q: %v, %v", tc.in, g, err)
		}
	}
}

func TestErrors(t *testing.T) {
	ts := []*topics.Topic{{ID: "a"}}
	for _, tc := range []struct {
		ts   []*topics.Topic
		opt  Options
		want string
	}{
		{ts, Options{HeldOut: 0}, "held-out share 0 must be between 0 and 1"},
		{ts, Options{HeldOut: 1}, "held-out share 1 must be between 0 and 1"},
		{nil, Options{HeldOut: 0.5}, "no topics"},
	} {
		if _, err := Split(tc.ts, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestJudgmentsAndSummary(t *testing.T) {
	ts, err := topics.Read(input.FromBytes("t.jsonl", []byte(`{"id":"a","family":"f","tags":["billing"]}
{"id":"b","family":"f","tags":["billing","recent"]}
{"id":"c","tags":["recent"]}
{"id":"d"}
`)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Split(ts.Topics, Options{HeldOut: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.IsHeldOut("a") != r.IsHeldOut("b") || len(r.HeldOut) != 2 {
		t.Fatalf("held out %v", ids(r.HeldOut))
	}
	js, err := judgments.Read(input.FromBytes("j.jsonl", []byte(`{"query":"a","item":"x","grade":1}
{"query":"c","item":"y","grade":2}
{"query":"b","item":"x","grade":0}
`)), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dev, held, err := r.Judgments(js)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range dev {
		if r.IsHeldOut(j.Query) {
			t.Errorf("judgment of held-out %s on the dev side", j.Query)
		}
	}
	for _, j := range held {
		if !r.IsHeldOut(j.Query) {
			t.Errorf("judgment of dev %s on the held-out side", j.Query)
		}
	}
	if len(dev)+len(held) != 3 {
		t.Errorf("%d + %d judgments, want 3", len(dev), len(held))
	}
	var buf bytes.Buffer
	r.WriteSummary(&buf)
	for _, want := range []string{"held-out  2       1       0.50", "billing  0    2         1.00", "recent   1    1         0.50"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
	stray, _ := judgments.Read(input.FromBytes("j.jsonl", []byte(`{"query":"z","item":"x","grade":1}`)), judgments.Options{})
	if _, _, err := r.Judgments(stray); err == nil || !strings.Contains(err.Error(), `j.jsonl:1: query "z": judged query has no topic`) {
		t.Errorf("error %v", err)
	}
}

// TestRun: the files of a split, with judgments and without, in the order
// of Files, and the summary's first line.
func TestRun(t *testing.T) {
	ts, err := topics.Read(input.FromBytes("t.jsonl", []byte("{\"id\":\"a\"}\n{\"id\":\"b\"}\n")))
	if err != nil {
		t.Fatal(err)
	}
	js, err := judgments.Read(input.FromBytes("j.jsonl", []byte(`{"query":"a","item":"x","grade":1}`)), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	by, _ := ParseGroupBy("family")
	for _, c := range []struct {
		name string
		js   *judgments.Set
	}{{"topics", nil}, {"with judgments", js}} {
		t.Run(c.name, func(t *testing.T) {
			r, outs, err := Run(ts, c.js, Options{HeldOut: 0.5, Seed: 1, GroupBy: by})
			if err != nil {
				t.Fatal(err)
			}
			want := FilesOf(c.js != nil)
			if len(outs) != len(want) {
				t.Fatalf("%d outputs, want %v", len(outs), want)
			}
			lines := map[bool]int{} // judgments or topics: lines written
			for i, o := range outs {
				var buf bytes.Buffer
				if o.Name != want[i] || o.Write(&buf) != nil {
					t.Errorf("output %d: %s, want %s", i, o.Name, want[i])
				}
				lines[strings.Contains(o.Name, "judgments")] += strings.Count(buf.String(), "\n")
			}
			if lines[false] != 2 || lines[true] != len(want)/2-1 {
				t.Errorf("lines written %v", lines)
			}
			var buf bytes.Buffer
			r.WriteSummary(&buf)
			if first := "split: 2 topics, group by family, held-out share 0.5, seed 1\n"; !strings.HasPrefix(buf.String(), first) {
				t.Errorf("summary %q", buf.String())
			}
			dir := filepath.Join(t.TempDir(), "out")
			out := outfile.New(outfile.Options{})
			defer out.Abort()
			if err := Claim(out, dir, c.js != nil); err != nil {
				t.Fatal(err)
			}
			var told bytes.Buffer
			if err := Save(out, dir, outs, &told); err != nil {
				t.Fatal(err)
			}
			for _, name := range want {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil || !strings.Contains(told.String(), "wrote "+filepath.Join(dir, name)+"\n") {
					t.Errorf("%s: %v; told %q", name, err, told.String())
				}
			}
		})
	}
}
