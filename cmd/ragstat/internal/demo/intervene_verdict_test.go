package demo_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/intervene"
	"github.com/ragstat/ragstat/topics"
)

// answer is a generator that gives one answer to every request, or fails.
type answer struct {
	text string
	err  error
}

func (a answer) Generate(context.Context, string, intervene.Request) (intervene.Response, error) {
	return intervene.Response{Text: a.text}, a.err
}

func TestVerdicts(t *testing.T) {
	opt, traces := options(t, nil)
	run := func(t *testing.T, o intervene.Options) *intervene.Result {
		t.Helper()
		res, err := intervene.Run(context.Background(), traces, o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("not the context", func(t *testing.T) {
		res := run(t, withGenerator(opt, answer{text: "Maybe. [policy#2]"}))
		if res.Verdicts[intervene.NotTheContext] != 4 || len(res.Verdicts) != 1 {
			t.Errorf("verdicts %v", res.Verdicts)
		}
	})
	t.Run("not run", func(t *testing.T) {
		res := run(t, withGenerator(opt, answer{err: errors.New("generator: 400 Bad Request: no such model")}))
		if res.Verdicts[intervene.NotRun] != 4 || !strings.Contains(res.Cases[0].Original.Error, "no such model") {
			t.Errorf("verdicts %v, error %q", res.Verdicts, res.Cases[0].Original.Error)
		}
	})
	t.Run("named queries", func(t *testing.T) {
		o := withGenerator(opt, demo.Reader{})
		o.Queries = []string{"refund-window"}
		res := run(t, o)
		got := verdicts(res)
		// v2's recorded answer passed; regenerated, it still does.
		if got["v1/refund-window"] != intervene.ContextContributed || got["v2/refund-window"] != intervene.OriginalPasses || len(got) != 2 {
			t.Errorf("verdicts %v", got)
		}
		o.Queries = []string{"nope"}
		if _, err := intervene.Run(context.Background(), traces, o); err == nil || !strings.Contains(err.Error(), "query nope has no trace") {
			t.Errorf("unknown query: %v", err)
		}
	})
	t.Run("evidence insufficient", func(t *testing.T) {
		// The limit's only support is tenant B's page, out of the
		// query's scope: no verified set can hold it.
		ts, err := topics.Read(input.FromBytes("topics.jsonl", []byte(
			`{"id":"api-limits","text":"What is our API rate limit?","answerable":true,"scopes":["tenant-a"],"as_of":"2026-06-01",`+
				`"facts":[{"id":"limit","support":[{"item":"limits-b#1"}]}],"answers":["600 requests per minute per key."]}`+"\n")))
		if err != nil {
			t.Fatal(err)
		}
		o := withGenerator(opt, demo.Reader{})
		o.Topics = ts
		res := run(t, o)
		if res.Verdicts[intervene.EvidenceInsufficient] != 2 || len(res.Cases) != 2 ||
			!slices.Equal(res.Cases[0].Verified.Missing, []string{"fact limit: limits-b#1 is out of the query's scope"}) {
			t.Fatalf("verdicts %v, missing %v", res.Verdicts, res.Cases[0].Verified.Missing)
		}
	})
	t.Run("left out", func(t *testing.T) {
		res := run(t, withGenerator(opt, demo.Reader{}))
		var why []string
		for _, s := range res.Skipped {
			why = append(why, s.System+"/"+s.Query+": "+s.Why)
		}
		want := []string{
			"v1/crypto-refund: unanswerable: there is no evidence to verify",
			"v2/refund-window: the recorded answer passes",
			"v2/api-limits: the recorded answer passes",
			"v2/crypto-refund: unanswerable: there is no evidence to verify",
		}
		if !slices.Equal(why, want) {
			t.Errorf("left out:\n%s\nwant:\n%s", strings.Join(why, "\n"), strings.Join(want, "\n"))
		}
	})
}

func TestVerifyByJudgments(t *testing.T) {
	opt, traces := options(t, nil)
	// Without facts, every valid judged item at the threshold or above,
	// best grade first; the superseded revision is left out as stale.
	topic := &topics.Topic{ID: "refund-window", Answerable: true, Scopes: []string{"tenant-a"}, AsOf: opt.Topics.Get("refund-window").AsOf}
	set := intervene.Verify(topic, opt.Judgments.Query("refund-window"), opt.Corpus, traces[1], 1)
	if set.From != "judgments" || !slices.Equal(set.IDs(), []string{"policy#2", "faq#7"}) || !set.Sufficient() {
		t.Errorf("verified %+v", set)
	}
	set = intervene.Verify(topic, opt.Judgments.Query("refund-window"), opt.Corpus, traces[1], 3)
	if !slices.Equal(set.IDs(), []string{"policy#2"}) {
		t.Errorf("at grade 3: %v", set.IDs())
	}
	set = intervene.Verify(topic, nil, opt.Corpus, traces[1], 1)
	if set.Sufficient() || set.Missing[0] != "the query has no judgments" {
		t.Errorf("no judgments: %+v", set)
	}
}
