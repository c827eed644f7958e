package hf

import (
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
	cache        wordCache
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
	ids, ok := m.cache.get(word)
	if !ok {
		w := m.symbols(word)
		w.mergeAll(m.merges)
		for _, s := range w.syms {
			if s.len > 0 {
				ids = append(ids, s.id)
			}
		}
		m.cache.put(word, ids)
	}
	for _, id := range ids {
		emit(id)
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
	for i := 0; i < len(s); i++ {
		if _, ok := m.vocab[byteToken(s[i])]; !ok {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		w.add(m.vocab[byteToken(s[i])], 1)
	}
	return true
}

// byteTokens are the byte fallback tokens, <0x00> to <0xFF>.
var byteTokens = func() (t [256]string) {
	for b := range t {
		t[b] = fmt.Sprintf("<0x%02X>", b)
	}
	return t
}()

func byteToken(b byte) string { return byteTokens[b] }

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
	var q mergeQueue
	for i := 0; i+1 < len(w.syms); i++ {
		if r, ok := merges[[2]int{w.syms[i].id, w.syms[i+1].id}]; ok {
			q.push(pendingMerge{pos: i, rank: r.rank, id: r.id})
		}
	}
	for len(q) > 0 {
		top := q.pop()
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
				q.push(pendingMerge{pos: cur.prev, rank: r.rank, id: r.id})
			}
		}
		if cur.next >= 0 {
			if r, ok := merges[[2]int{cur.id, w.syms[cur.next].id}]; ok {
				q.push(pendingMerge{pos: top.pos, rank: r.rank, id: r.id})
			}
		}
	}
}

// pendingMerge is a merge of the symbol at pos with the next one.
type pendingMerge struct{ pos, rank, id int }

func (a pendingMerge) before(b pendingMerge) bool {
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}

// mergeQueue is a binary min-heap of pending merges, by rank then position.
type mergeQueue []pendingMerge

func (q *mergeQueue) push(m pendingMerge) {
	*q = append(*q, m)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h[i].before(h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (q *mergeQueue) pop() pendingMerge {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].before(h[least]) {
			least = l
		}
		if r < len(h) && h[r].before(h[least]) {
			least = r
		}
		if least == i {
			break
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
	*q = h
	return top
}
