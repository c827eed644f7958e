package hf

import "unicode/utf8"

// wordPiece is the WordPiece model: greedy longest-match-first subwords,
// the unknown token for a word that cannot be covered or is too long.
type wordPiece struct {
	vocab    map[string]int
	unkID    int
	prefix   string // continuing_subword_prefix
	maxChars int    // max_input_chars_per_word
}

func (m *wordPiece) id(token string) (int, bool) { id, ok := m.vocab[token]; return id, ok }

func (m *wordPiece) size() int { return len(m.vocab) }

func (m *wordPiece) tokenize(word string, emit func(int)) {
	if utf8.RuneCountInString(word) > m.maxChars {
		emit(m.unkID)
		return
	}
	var ids []int
	for start := 0; start < len(word); {
		id, end := m.longest(word, start)
		if end < 0 {
			emit(m.unkID)
			return
		}
		ids = append(ids, id)
		start = end
	}
	for _, id := range ids {
		emit(id)
	}
}

// longest finds the longest vocabulary entry at word[start:], with the
// prefix after the first subword; end is -1 if there is none.
func (m *wordPiece) longest(word string, start int) (id, end int) {
	for end = len(word); end > start; {
		sub := word[start:end]
		if start > 0 {
			sub = m.prefix + sub
		}
		if id, ok := m.vocab[sub]; ok {
			return id, end
		}
		_, n := utf8.DecodeLastRuneInString(word[start:end])
		end -= n
	}
	return 0, -1
}
