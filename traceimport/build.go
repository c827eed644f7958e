package traceimport

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/trace"
)

// generationLatency is the latency key of the generator span.
const generationLatency = "generation"

// build maps one closed trace; nil when it holds nothing to map.
func (a *assembler) build(t *openTrace) (*trace.Trace, error) {
	r, man := a.r, a.man
	spans := ordered(t.spans)
	at := spans[0].place
	var errs diag.List
	var retrievers, generators []*span
	for _, s := range spans {
		switch s.role {
		case roleRetriever:
			retrievers = append(retrievers, s)
		case roleGenerator:
			generators = append(generators, s)
		case roleUnknown:
			errs.Add(man.problem(r, UnknownKind, s.place, s.id, fmt.Sprintf("%s (%s)", s.name, s.kind)))
		}
	}
	if len(retrievers) == 0 && len(generators) == 0 {
		errs.Add(man.problem(r, Empty, at, "", "trace "+t.id))
		return nil, errs.Err()
	}
	out := &trace.Trace{Latency: map[string]float64{}, File: at.file, Line: at.line, TraceID: t.id}
	out.Query = a.queryID(t, spans, &errs)
	out.System = a.system(spans)
	conversation, turn := a.turn(spans, out.System)
	if turn > 1 && out.Query == conversation && r.QueryID == "" {
		out.Query = fmt.Sprintf("%s#%d", conversation, turn)
	}
	stageOrder(spans, retrievers)
	parent := parentIDs(spans)
	a.settle(out.System, retrievers, dataFlow(parent, retrievers), parent)
	var last *trace.Stage
	var lastDocs []document
	outputs := map[string]bool{}
	for _, s := range retrievers {
		outputs[docsKey(s.docs)] = true
	}
	known := map[string]bool{}
	names := map[string]int{}
	out.Conversation, out.Turn = conversation, turn
	meta := traceMeta{Source: a.format, TraceID: t.id, Conventions: conventions(spans)}
	for _, calls := range searchSteps(spans, retrievers) {
		s := calls[0]
		name := s.name
		if to, ok := r.Stages[name]; ok {
			if to == "-" {
				continue
			}
			name = to
		}
		if s.hasInputDocs && !outputs[docsKey(s.inputDocs)] {
			in := &span{id: s.id, name: s.name + " input", place: s.place, docs: s.inputDocs}
			st, docs := a.stage(in, a.stageName(names, in.name, s.place), &errs)
			st.SpanID = s.id
			a.man.Lists++
			out.Stages = append(out.Stages, *st)
			last, lastDocs = &out.Stages[len(out.Stages)-1], docs
		}
		name = a.stageName(names, name, s.place)
		st, docs := a.step(calls, name, &errs)
		st.SpanID = s.id
		for _, it := range st.Items {
			known[it.ID] = true
		}
		out.Stages = append(out.Stages, *st)
		last, lastDocs = st, docs
		for _, c := range calls {
			if c.start > 0 && c.end >= c.start {
				out.Latency[name] += float64(c.end-c.start) / 1e6
			}
		}
		if sm := stageMetaOf(calls); sm != nil {
			if meta.Stages == nil {
				meta.Stages = map[string]stageMeta{}
			}
			meta.Stages[name] = *sm
		}
	}
	if len(generators) > 0 {
		g := generators[0]
		for _, s := range generators[1:] {
			if s.end >= g.end {
				g = s
			}
		}
		if len(generators) > 1 {
			man.note(SeveralGen, g.place, g.name)
		}
		meta.Generator, meta.Tokens = g.name, g.tokens
		if g.badTokens != "" {
			errs.Add(man.problem(r, BadTokens, g.place, g.id, g.name+": "+g.badTokens))
		}
		if g.model != "" {
			out.Config, _ = json.Marshal(map[string]string{"model": g.model})
		}
		latency(out, generationLatency, g)
		if g.hasPrompt {
			st := a.context(g, last, lastDocs, &errs)
			st.SpanID = g.id
			if g.tokens.Prompt != nil {
				n := int(*g.tokens.Prompt)
				st.ReportedTokens = &n
			}
			out.Stages = append(out.Stages, st)
		} else {
			errs.Add(man.problem(r, NoPrompt, g.place, g.id, g.name))
		}
		if g.hasAnswer {
			out.Answer = a.answer(g, known, &errs)
		} else {
			errs.Add(man.problem(r, NoAnswer, g.place, g.id, g.name))
		}
	} else {
		errs.Add(man.problem(r, NoGenerator, at, "", "trace "+t.id))
	}
	if r.abstain == nil && out.Answer != nil {
		meta.Abstention = "not recorded"
	}
	out.Meta, _ = json.Marshal(meta)
	if len(out.Latency) == 0 {
		out.Latency = nil
	}
	if err := out.Check(); err != nil {
		errs.Add(&diag.Error{File: at.file, Line: at.line, Query: out.Query, Msg: fmt.Sprintf("trace %s: %v", t.id, err)})
		return nil, errs.Err()
	}
	return out, errs.Err()
}

// traceMeta is what a written trace's "meta" records of its source.
type traceMeta struct {
	Source     Format `json:"source"`
	TraceID    string `json:"trace_id"`
	Generator  string `json:"generator,omitempty"`
	Tokens     tokens `json:"reported_tokens,omitzero"`
	Abstention string `json:"abstention,omitempty"`
	// Conventions are those the trace's spans were read under (OTLP).
	Conventions []string `json:"conventions,omitempty"`
	// Stages records, by stage name, what the retrieval spans said of
	// their search beside the documents.
	Stages map[string]stageMeta `json:"stages,omitempty"`
}

// ordered puts the root spans first, then the others by start time, then
// as they arrived.
func ordered(spans []*span) []*span {
	out := slices.Clone(spans)
	slices.SortStableFunc(out, func(x, y *span) int {
		return cmp.Or(cmp.Compare(boolInt(x.parent != ""), boolInt(y.parent != "")), cmp.Compare(x.start, y.start))
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stageOrder sorts retrieval spans into pipeline order: by end time, but a
// retriever that runs inside another always comes first, whatever the
// clocks say (OpenTelemetry JS stamps a span's start in milliseconds and
// its end in finer time, so an inner span can seem to end after the span
// that holds it). Each span is ranked by the earliest end among itself and
// its retrieval ancestors, the deeper first on a tie.
func stageOrder(spans, retrievers []*span) {
	parent := parentIndex(spans)
	depth := make([]int, len(spans))
	ancestry(parent,
		func(i int) { depth[i] = 0 },
		func(i int) { depth[i] = depth[parent[i]] + 1 },
		func(cycle []int) {
			for _, i := range cycle {
				depth[i] = len(cycle) - 1
			}
		})
	// key is the earliest end among a span and its retrieval ancestors.
	retriever := make(map[*span]bool, len(retrievers))
	for _, s := range retrievers {
		retriever[s] = true
	}
	own := make([]int64, len(spans))
	for i, s := range spans {
		own[i] = math.MaxInt64
		if retriever[s] {
			own[i] = s.end
		}
	}
	key := make([]int64, len(spans))
	ancestry(parent,
		func(i int) { key[i] = own[i] },
		func(i int) { key[i] = min(own[i], key[parent[i]]) },
		func(cycle []int) {
			k := int64(math.MaxInt64)
			for _, i := range cycle {
				k = min(k, own[i])
			}
			for _, i := range cycle {
				key[i] = k
			}
		})
	at := make(map[*span]int, len(spans))
	for i, s := range spans {
		at[s] = i
	}
	slices.SortStableFunc(retrievers, func(x, y *span) int {
		i, j := at[x], at[y]
		return cmp.Or(cmp.Compare(key[i], key[j]), cmp.Compare(depth[j], depth[i]))
	})
}

// parentIndex gives the index in spans of every span's parent: -1 for a
// root or a span whose parent was never read.
func parentIndex(spans []*span) []int {
	at := make(map[string]int, len(spans))
	for i, s := range spans {
		at[s.id] = i
	}
	parent := make([]int, len(spans))
	for i, s := range spans {
		if p, ok := at[s.parent]; ok && s.parent != "" {
			parent[i] = p
		} else {
			parent[i] = -1
		}
	}
	return parent
}

// ancestry computes a value for every span from its parent's, walking each
// chain of parents once (O(spans) in all, however deep the tree): root
// gives it to a span without a parent (parent[i] < 0), child to a span
// whose parent has its value, and cycle to every span of a loop of
// parents at once (a damaged trace). The depth of a span is then the
// number of its ancestors, and in a loop the loop's other spans.
func ancestry(parent []int, root, child func(i int), cycle func(loop []int)) {
	const (
		todo = iota
		walking
		done
	)
	state := make([]uint8, len(parent))
	onPath := make([]int, len(parent)) // a walking span's place in path
	var path []int
	for i := range parent {
		path = path[:0]
		for j := i; state[j] != done; j = parent[j] {
			if state[j] == walking {
				loop := path[onPath[j]:]
				cycle(loop)
				for _, k := range loop {
					state[k] = done
				}
				path = path[:onPath[j]]
				break
			}
			state[j], onPath[j] = walking, len(path)
			path = append(path, j)
			if parent[j] < 0 {
				root(j)
				state[j] = done
				path = path[:len(path)-1]
				break
			}
		}
		for k := len(path) - 1; k >= 0; k-- {
			child(path[k])
			state[path[k]] = done
		}
	}
}

// queryID is the first key of the rules any span holds, roots first.
func (a *assembler) queryID(t *openTrace, spans []*span, errs *diag.List) string {
	for i, key := range a.r.queryKeys {
		for _, s := range spans {
			if v := s.keys[i]; v != "" {
				a.man.QueryID[key]++
				return v
			}
		}
	}
	a.man.QueryID["trace id"]++
	errs.Add(a.man.problem(a.r, NoQueryID, spans[0].place, "", "trace "+t.id))
	return t.id
}

// system is the system's name: given, or from a key, or the file's name.
func (a *assembler) system(spans []*span) string {
	if a.r.System != "" {
		a.man.System[a.r.name("system")]++
		return a.r.System
	}
	off := len(a.r.queryKeys)
	for i, key := range a.r.systemKeys {
		for _, s := range spans {
			if v := s.keys[off+i]; v != "" {
				a.man.System[key]++
				return v
			}
		}
	}
	a.man.System["file name"]++
	return fileSystem(spans[0].place.file)
}

// stage makes a retrieval span's stage, and returns the documents kept.
func (a *assembler) stage(s *span, name string, errs *diag.List) (*trace.Stage, []document) {
	st := &trace.Stage{Name: name, Items: []trace.Item{}}
	seen := map[string]bool{}
	var kept []document
	for _, d := range s.docs {
		switch {
		case d.id == "":
			errs.Add(a.man.problem(a.r, NoItemID, s.place, s.id, s.name+" (no id and no content)"))
			continue
		case d.idFrom == "":
			errs.Add(a.man.problem(a.r, NoItemID, s.place, s.id, s.name))
		}
		if d.badMeta != "" {
			errs.Add(a.man.problem(a.r, BadItem, s.place, s.id, s.name+": "+d.badMeta))
		}
		if seen[d.id] {
			errs.Add(a.man.problem(a.r, RepeatedItem, s.place, s.id, s.name+": "+d.id))
			continue
		}
		seen[d.id] = true
		st.Items = append(st.Items, trace.Item{ID: d.id, Score: d.score, Meta: d.meta})
		kept = append(kept, d)
	}
	return st, kept
}

// answer is the generator's output with its citations and, when a pattern
// is given, whether it abstained.
func (a *assembler) answer(g *span, known map[string]bool, errs *diag.List) *trace.Answer {
	ans := &trace.Answer{Text: g.answer}
	cited := map[string]bool{}
	for _, m := range a.r.citation.FindAllStringSubmatch(g.answer, -1) {
		id := m[0]
		if len(m) > 1 {
			id = m[1]
		}
		if id == "" || cited[id] {
			continue
		}
		cited[id] = true
		ans.Citations = append(ans.Citations, id)
		if !known[id] {
			errs.Add(a.man.problem(a.r, UnknownCitation, g.place, g.id, strconv.Quote(id)))
		}
	}
	if a.r.abstain != nil {
		abstained := a.r.abstain.MatchString(g.answer)
		ans.Abstained = &abstained
	}
	return ans
}

// latency records a span's duration under a stage name.
func latency(t *trace.Trace, name string, s *span) {
	if s.start > 0 && s.end >= s.start {
		t.Latency[name] = float64(s.end-s.start) / 1e6
	}
}
