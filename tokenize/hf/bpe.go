package hf

import (
	"container/heap"
	"fmt"
	"strings"
	"unicode/utf8"
)

// bpe is the BPE model.
type bpe struct {
	vocab        map[string]int
	merges       map[[2]int]mergeRule
	unk          string // "" if none
	prefix       string // continuing_subword_prefix
	suffix       string // end_of_word_suffix
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
}

// mergeRule is what a pair of adjacent tokens merges into, and its rank.
type mergeRule struct{ rank, id int }

// newBPE checks the merges: both parts and the merged token (the right
// part without its continuing_subword_prefix) must be in the vocabulary.
func newBPE(vocab map[string]int, merges [][2]string, prefix string) (*bpe, error) {
	m := &bpe{vocab: vocab, prefix: prefix, merges: make(map[[2]int]mergeRule, len(merges))}
	for rank, pair := range merges {
		right, ok := strings.CutPrefix(pair[1], prefix)
		if !ok {
			return nil, fmt.Errorf("merge %d: %q does not start with the continuing_subword_prefix %q", rank+1, pair[1], prefix)
		}
		ids := [3]int{}
		for i, tok := range []string{pair[0], pair[1], pair[0] + right} {
			id, ok := vocab[tok]
			if !ok {
				return nil, fmt.Errorf("merge %d: %q is not in the vocabulary", rank+1, tok)
			}
			ids[i] = id
		}
		m.merges[[2]int{ids[0], ids[1]}] = mergeRule{rank, ids[2]}
	}
	return m, nil
}

func (m *bpe) id(token string) (int, bool) { id, ok := m.vocab[token]; return id, ok }

func (m *bpe) size() int { return len(m.vocab) }

func (m *bpe) tokenize(word string, emit func(int)) {
	if m.ignoreMerges {
		if id, ok := m.vocab[word]; ok {
			emit(id)
			return
		}
	}
	w := m.symbols(word)
	w.mergeAll(m.merges)
	for _, s := range w.syms {
		if s.len > 0 {
			emit(s.id)
		}
	}
}

// symbols splits word into its first tokens: one per character, or its
// bytes (byte fallback), or the unknown token.
func (m *bpe) symbols(word string) *bpeWord {
	w := &bpeWord{}
	unkID, unkLen := -1, 0
	flushUnk := func() {
		if unkID >= 0 {
			w.add(unkID, unkLen)
			unkID = -1
		}
	}
	for i, r := range word {
		n := utf8.RuneLen(r)
		s := word[i : i+n]
		if i > 0 {
			s = m.prefix + s
		}
		if i+n == len(word) {
			s += m.suffix
		}
		if id, ok := m.vocab[s]; ok {
			flushUnk()
			w.add(id, n)
			continue
		}
		if m.byteFallback && m.addBytes(w, s) {
			continue
		}
		if m.unk == "" {
			continue
		}
		id, ok := m.vocab[m.unk]
		if !ok {
			continue
		}
		if unkID >= 0 && m.fuseUnk {
			unkLen += n
			continue
		}
		flushUnk()
		unkID, unkLen = id, n
	}
	flushUnk()
	return w
}

// addBytes adds the <0xNN> tokens of s's bytes, if the vocabulary has them
// all.
func (m *bpe) addBytes(w *bpeWord, s string) bool {
	ids := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		id, ok := m.vocab[fmt.Sprintf("<0x%02X>", s[i])]
		if !ok {
			return false
		}
		ids[i] = id
	}
	for _, id := range ids {
		w.add(id, 1)
	}
	return true
}

// bpeWord is a word as a linked list of tokens, merged in place.
type bpeWord struct {
	syms []symbol
}

type symbol struct {
	id         int
	prev, next int // -1 at the ends
	len        int // bytes; 0 once merged into the previous symbol
}

func (w *bpeWord) add(id, n int) {
	k := len(w.syms)
	if k > 0 {
		w.syms[k-1].next = k
	}
	w.syms = append(w.syms, symbol{id: id, prev: k - 1, next: -1, len: n})
}

// mergeAll applies the merges, lowest rank first and leftmost among equal
// ranks, until no adjacent pair has a merge.
func (w *bpeWord) mergeAll(merges map[[2]int]mergeRule) {
	q := &mergeQueue{}
	for i := 0; i+1 < len(w.syms); i++ {
		if r, ok := merges[[2]int{w.syms[i].id, w.syms[i+1].id}]; ok {
			q.items = append(q.items, pendingMerge{pos: i, rank: r.rank, id: r.id})
		}
	}
	heap.Init(q)
	for q.Len() > 0 {
		top := heap.Pop(q).(pendingMerge)
		cur := &w.syms[top.pos]
		if cur.len == 0 || cur.next < 0 {
			continue
		}
		right := w.syms[cur.next]
		if r, ok := merges[[2]int{cur.id, right.id}]; !ok || r.id != top.id {
			continue
		}
		cur.id, cur.len = top.id, cur.len+right.len
		w.syms[cur.next].len = 0
		cur.next = right.next
		if right.next >= 0 {
			w.syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			if r, ok := merges[[2]int{w.syms[cur.prev].id, cur.id}]; ok {
				heap.Push(q, pendingMerge{pos: cur.prev, rank: r.rank, id: r.id})
			}
		}
		if cur.next >= 0 {
			if r, ok := merges[[2]int{cur.id, w.syms[cur.next].id}]; ok {
				heap.Push(q, pendingMerge{pos: top.pos, rank: r.rank, id: r.id})
			}
		}
	}
}

// pendingMerge is a merge of the symbol at pos with the next one.
type pendingMerge struct{ pos, rank, id int }

// mergeQueue orders pending merges by rank, then position.
type mergeQueue struct{ items []pendingMerge }

func (q *mergeQueue) Len() int { return len(q.items) }
func (q *mergeQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}
func (q *mergeQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *mergeQueue) Push(x any)    { q.items = append(q.items, x.(pendingMerge)) }
func (q *mergeQueue) Pop() any {
	last := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return last
}
