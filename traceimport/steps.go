package traceimport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/trace"
)

// searchSteps groups the retrieval spans, in pipeline order, into stages:
// spans of one name that are siblings (under one parent span, or under
// parents of one name that are siblings themselves, as an agent's tool
// spans that each wrap a retriever) are the calls of one search step, in
// the order they ran, placed where the first ran; every other span is a
// stage of its own.
func searchSteps(spans, retrievers []*span) [][]*span {
	byID := make(map[string]*span, len(spans))
	for _, s := range spans {
		byID[s.id] = s
	}
	anchor := func(s *span) string {
		p := byID[s.parent]
		if p == nil {
			return "\x00" + s.parent
		}
		if p.role != roleRetriever && p.parent != "" {
			return p.name + "\x00" + p.parent
		}
		return "\x00" + p.id
	}
	var out [][]*span
	at := map[string]int{}
	for _, s := range retrievers {
		key := s.name + "\x00" + anchor(s)
		if i, ok := at[key]; ok && s.parent != "" {
			out[i] = append(out[i], s)
			continue
		}
		at[key] = len(out)
		out = append(out, []*span{s})
	}
	for _, calls := range out {
		slices.SortStableFunc(calls, func(x, y *span) int { return int(min(max(x.start-y.start, -1), 1)) })
	}
	return out
}

// dataFlow corrects the pipeline order where the spans say which stage
// they took: a retrieval span whose input documents are exactly one other
// span's output (not that of a span that holds it: a wrapper's output is
// its last step's) comes right after it, whatever the clocks say
// (OpenTelemetry JS stamps starts in whole milliseconds, so steps that run
// within one millisecond cannot be told apart by time). Identical lists
// say nothing of the order: a span whose input several spans output keeps
// its place. Each span is visited once, then its consumers in their order.
// It returns the spans that took another's output: the producer of each.
// parent maps each span's id to its parent's (parentIDs).
func dataFlow(parent map[string]string, retrievers []*span) map[*span]*span {
	output := map[string][]*span{}
	for _, s := range retrievers {
		k := docsKey(s.docs)
		output[k] = append(output[k], s)
	}
	producer := map[*span]*span{}
	for _, s := range retrievers {
		if !s.hasInputDocs {
			continue
		}
		var found []*span
		for _, o := range output[docsKey(s.inputDocs)] {
			if o != s && !holds(parent, o.id, s.id) {
				found = append(found, o)
			}
		}
		if len(found) == 1 {
			producer[s] = found[0]
		}
	}
	if len(producer) == 0 {
		return producer
	}
	consumers := map[*span][]*span{}
	for _, s := range retrievers {
		if p := producer[s]; p != nil {
			consumers[p] = append(consumers[p], s)
		}
	}
	out := make([]*span, 0, len(retrievers))
	done := make(map[*span]bool, len(retrievers))
	visit := func(root *span) {
		stack := []*span{root}
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if done[s] {
				continue
			}
			done[s] = true
			out = append(out, s)
			next := consumers[s]
			for k := len(next) - 1; k >= 0; k-- {
				stack = append(stack, next[k])
			}
		}
	}
	for _, s := range retrievers {
		if producer[s] == nil {
			visit(s)
		}
	}
	for _, s := range retrievers { // spans whose producers form a cycle
		visit(s)
	}
	copy(retrievers, out)
	return producer
}

// settle orders the steps that neither the clock nor the data can order:
// neighbours that started in the same millisecond with the same list, of
// which neither took the other's output nor holds the other (a reranker
// that kept its input's order, then a packer that dropped nothing; but a
// query engine's retrieve span that holds the packer returns what the
// packer left, after it, as stageOrder put it). A step that takes no
// documents (a retriever) comes before those that take some; the rest take
// the order the same system's earlier trace showed where every step was
// told apart, so that the traces of one pipeline record its stages in one
// order. The numbers are the same either way, since the lists are. A trace
// whose order is known is remembered for the later ones. parent maps each
// span's id to its parent's (parentIDs).
func (a *assembler) settle(system string, retrievers []*span, producer map[*span]*span, parent map[string]string) {
	tied := func(i int) bool {
		x, y := retrievers[i], retrievers[i+1]
		return x.start/1e6 == y.start/1e6 && docsKey(x.docs) == docsKey(y.docs) &&
			producer[x] != y && producer[y] != x && !holds(parent, x.id, y.id) && !holds(parent, y.id, x.id)
	}
	order, learned := a.orders[system]
	known := true
	for i := 0; i+1 < len(retrievers); {
		j := i + 1
		for j < len(retrievers) && tied(j-1) {
			j++
		}
		if j-i > 1 {
			known = false
			run := retrievers[i:j]
			slices.SortStableFunc(run, func(x, y *span) int {
				if x.hasInputDocs != y.hasInputDocs {
					if y.hasInputDocs {
						return -1
					}
					return 1
				}
				if !learned {
					return 0
				}
				ox, okx := order[x.name]
				oy, oky := order[y.name]
				if !okx || !oky {
					return 0
				}
				return ox - oy
			})
		}
		i = j
	}
	if known && !learned {
		order = make(map[string]int, len(retrievers))
		for i, s := range retrievers {
			order[s.name] = i
		}
		a.orders[system] = order
	}
}

// parentIDs maps every span's id to its parent's.
func parentIDs(spans []*span) map[string]string {
	parent := make(map[string]string, len(spans))
	for _, s := range spans {
		parent[s.id] = s.parent
	}
	return parent
}

// holds tells whether span a is an ancestor of span s.
func holds(parent map[string]string, a, s string) bool {
	seen := map[string]bool{}
	for p := parent[s]; p != "" && !seen[p]; p = parent[p] {
		if p == a {
			return true
		}
		seen[p] = true
	}
	return false
}

// docsKey is a list's ids in order, as one key.
func docsKey(docs []document) string {
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(d.id)
		b.WriteByte(0)
	}
	return b.String()
}

// stageName is a stage's name made unique in its trace: a name given
// before, or the context stage's, is numbered (name-2) and noted.
func (a *assembler) stageName(names map[string]int, name string, at place) string {
	if names[name]++; names[name] > 1 || name == trace.ContextStage {
		a.man.note(StageRenamed, at, name)
		name = fmt.Sprintf("%s-%d", name, names[name])
	}
	return name
}

// step makes the stage of a search step's calls (one call: the span's
// stage), and returns the documents kept: the union of the calls, each
// item where it was first returned, with the ids of each call.
func (a *assembler) step(calls []*span, name string, errs *diag.List) (*trace.Stage, []document) {
	var st *trace.Stage
	var kept []document
	index := map[string]bool{}
	if slices.ContainsFunc(calls, func(s *span) bool { return s.hasDocs }) {
		a.man.Lists++
	}
	for _, s := range calls {
		if !s.hasDocs {
			errs.Add(a.man.problem(a.r, NoDocuments, s.place, s.id, s.name))
		}
		one, docs := a.stage(s, name, errs)
		if len(calls) == 1 {
			return one, docs
		}
		if st == nil {
			st = &trace.Stage{Name: name, Items: []trace.Item{}}
		}
		st.Calls = append(st.Calls, trace.Call{Query: s.query, IDs: one.IDs()})
		for i, it := range one.Items {
			if !index[it.ID] {
				index[it.ID] = true
				st.Items = append(st.Items, it)
				kept = append(kept, docs[i])
			}
		}
	}
	a.man.SearchCalls += len(calls)
	a.man.note(SearchStep, calls[0].place, fmt.Sprintf("%s (%d calls)", name, len(calls)))
	return st, kept
}

// stageMeta is what retrieval spans said of their search: the query
// text (one a call), the data source, the number of documents asked for.
type stageMeta struct {
	Queries    []string `json:"queries,omitempty"`
	DataSource string   `json:"data_source,omitempty"`
	TopK       *int64   `json:"top_k,omitempty"`
}

func stageMetaOf(calls []*span) *stageMeta {
	var m stageMeta
	for _, s := range calls {
		if s.query != "" {
			m.Queries = append(m.Queries, s.query)
		}
		if m.DataSource == "" {
			m.DataSource = s.source
		}
		if m.TopK == nil {
			m.TopK = s.topK
		}
	}
	if len(m.Queries) == 0 && m.DataSource == "" && m.TopK == nil {
		return nil
	}
	return &m
}

// conventions lists the conventions a trace's spans were read under.
func conventions(spans []*span) []string {
	var out []string
	for _, s := range spans {
		c := string(s.conv)
		if s.user {
			c = mappedConvention
		}
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// turn places a trace in its conversation: the first conversation key any
// span holds, and the trace's turn in it for its system, counted from 1 in
// the order traces close; "" and 0 when no span holds one.
func (a *assembler) turn(spans []*span, system string) (string, int) {
	off := len(a.r.queryKeys) + len(a.r.systemKeys)
	for i := range conversationKeys {
		for _, s := range spans {
			if v := s.keys[off+i]; v != "" {
				key := [2]string{v, system}
				a.turns[key]++
				return v, a.turns[key]
			}
		}
	}
	return "", 0
}
