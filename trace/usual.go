package trace

import (
	"encoding/binary"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/ragstat/ragstat/internal/jsonin"
)

// decode reads one trace line into t (whose File and Line are kept): a
// trace of the usual shape by decodeUsual, any other by the strict general
// decoder, so every error is the general decoder's.
func decode(data []byte, t *Trace) error {
	file, line := t.File, t.Line
	if decodeUsual(data, t) {
		return nil
	}
	*t = Trace{File: file, Line: line}
	return jsonin.DecodeFast(data, t, itemLists)
}

// decodeUsual decodes a trace of the usual shape, as bench/gentraces and
// most recorders write it, in one pass over data without reflection: the
// keys query, system, stages, answer and latency_ms; a stage's name, items,
// token budgets and texts; an item's id, score and text; each key spelt as
// documented and given once, no null, no empty list or map, strings
// without \u escapes and in valid UTF-8, numbers the general decoder reads
// to the same values. It reports false at the first thing outside that
// shape, valid or not, leaving t partly filled: the caller decodes the
// line again with the general decoder, which gives the same trace for
// every line accepted here (FuzzDecodeUsual) and the errors for the rest.
func decodeUsual(data []byte, t *Trace) bool {
	u := usualPool.Get().(*usual)
	defer usualPool.Put(u)
	u.d, u.i = data, 0
	ok := u.trace(t) && u.end()
	u.d = nil
	return ok
}

// usual is decodeUsual's reader: the line, the position, and scratch lists
// reused from trace to trace.
type usual struct {
	d      []byte
	i      int
	esc    []byte    // an escaped string's unescaped bytes
	items  []Item    // a list's items before their exact-size copy
	scores []float64 // their scores
	scored []bool    // whether each item gave a score
	text   []string  // their texts
	texted []bool    // whether each item gave a text
}

var usualPool = sync.Pool{New: func() any { return new(usual) }}

// Bits of the keys an object has given, to refuse a repeated one.
const (
	kQuery = 1 << iota
	kSystem
	kStages
	kAnswer
	kLatency
)

func (u *usual) trace(t *Trace) bool {
	_, ok := u.fields(func(key []byte) (bit int, ok bool) {
		switch string(key) {
		case "query":
			bit = kQuery
			t.Query, ok = u.str()
		case "system":
			bit = kSystem
			t.System, ok = u.str()
		case "stages":
			bit = kStages
			t.Stages, ok = u.stages()
		case "answer":
			bit = kAnswer
			t.Answer = new(Answer)
			ok = u.answer(t.Answer)
		case "latency_ms":
			bit = kLatency
			t.Latency, ok = u.latency()
		}
		return bit, ok
	})
	return ok
}

func (u *usual) stages() ([]Stage, bool) {
	out := make([]Stage, 0, 4)
	ok := u.array(func() bool {
		out = append(out, Stage{})
		return u.stage(&out[len(out)-1])
	})
	return out, ok
}

func (u *usual) stage(s *Stage) bool {
	_, ok := u.fields(func(key []byte) (bit int, ok bool) {
		switch string(key) {
		case "name":
			bit = 1
			s.Name, ok = u.str()
		case "items":
			bit = 2
			s.Items, ok = u.itemList()
		case "budget_tokens":
			bit = 4
			s.BudgetTokens, ok = u.intPtr()
		case "answer_reserve_tokens":
			bit = 8
			s.AnswerReserveTokens, ok = u.intPtr()
		case "instructions":
			bit = 16
			s.Instructions, ok = u.strPtr()
		case "request":
			bit = 32
			s.Request, ok = u.strPtr()
		case "text":
			bit = 64
			s.Text, ok = u.strPtr()
		case "reported_tokens":
			bit = 128
			s.ReportedTokens, ok = u.intPtr()
		}
		return bit, ok
	})
	return ok
}

// itemList reads a stage's items into a list of exactly their number, the
// scores given in one block and the texts in another, as itemLists does.
func (u *usual) itemList() ([]Item, bool) {
	u.items, u.scores, u.scored, u.text, u.texted = u.items[:0], u.scores[:0], u.scored[:0], u.text[:0], u.texted[:0]
	ok := u.array(func() bool {
		var id, text string
		var score float64
		seen, ok := u.fields(func(key []byte) (bit int, ok bool) {
			switch string(key) {
			case "id":
				bit = 1
				id, ok = u.str()
			case "score":
				bit = 2
				score, ok = u.float()
			case "text":
				bit = 4
				text, ok = u.str()
			}
			return bit, ok
		})
		u.items = append(u.items, Item{ID: id})
		u.scores, u.scored = append(u.scores, score), append(u.scored, seen&2 != 0)
		u.text, u.texted = append(u.text, text), append(u.texted, seen&4 != 0)
		return ok
	})
	if !ok {
		clear(u.items)
		clear(u.text)
		return nil, false
	}
	nScores, nTexts := 0, 0
	for i := range u.items {
		if u.scored[i] {
			nScores++
		}
		if u.texted[i] {
			nTexts++
		}
	}
	items := make([]Item, len(u.items))
	var scores []float64
	var texts []string
	if nScores > 0 {
		scores = make([]float64, 0, nScores)
	}
	if nTexts > 0 {
		texts = make([]string, 0, nTexts)
	}
	for i, it := range u.items {
		if u.scored[i] {
			scores = append(scores, u.scores[i])
			it.Score = &scores[len(scores)-1]
		}
		if u.texted[i] {
			texts = append(texts, u.text[i])
			it.Text = &texts[len(texts)-1]
		}
		items[i] = it
	}
	clear(u.items)
	clear(u.text)
	return items, true
}

func (u *usual) answer(a *Answer) bool {
	_, ok := u.fields(func(key []byte) (bit int, ok bool) {
		switch string(key) {
		case "text":
			bit = 1
			a.Text, ok = u.str()
		case "citations":
			bit = 2
			ok = u.array(func() bool {
				c, ok := u.str()
				a.Citations = append(a.Citations, c)
				return ok
			})
		case "abstained":
			bit = 4
			var b bool
			b, ok = u.boolean()
			a.Abstained = &b
		}
		return bit, ok
	})
	return ok
}

func (u *usual) latency() (map[string]float64, bool) {
	m := make(map[string]float64, 8)
	ok := u.object(func(key []byte) bool {
		k := string(key)
		if _, dup := m[k]; dup {
			return false
		}
		v, ok := u.float()
		m[k] = v
		return ok
	})
	return m, ok
}

// fields reads a non-empty object whose keys each come at most once:
// field reads the value at a key and returns the key's bit, with ok false
// for a key it does not know or a value it cannot read. It returns the
// bits of the keys given.
func (u *usual) fields(field func(key []byte) (bit int, ok bool)) (seen int, ok bool) {
	ok = u.object(func(key []byte) bool {
		bit, ok := field(key)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	return seen, ok
}

// object reads a non-empty object, calling member with each key (its raw
// bytes, without escapes) once the reader stands at the key's value.
func (u *usual) object(member func(key []byte) bool) bool {
	if !u.next('{') {
		return false
	}
	for {
		key, ok := u.key()
		if !ok || !u.next(':') {
			return false
		}
		u.ws()
		if !member(key) {
			return false
		}
		if more, ok := u.more('}'); !more {
			return ok
		}
	}
}

// array reads a non-empty array, calling elem at each element.
func (u *usual) array(elem func() bool) bool {
	if !u.next('[') {
		return false
	}
	for {
		u.ws()
		if !elem() {
			return false
		}
		if more, ok := u.more(']'); !more {
			return ok
		}
	}
}

// more reads what follows a member or element: a comma, and more is true;
// or close, which ends the object or array well (ok). Anything else is
// not ok.
func (u *usual) more(close byte) (more, ok bool) {
	u.ws()
	if u.i >= len(u.d) {
		return false, false
	}
	switch u.d[u.i] {
	case ',':
		u.i++
		return true, true
	case close:
		u.i++
		return false, true
	}
	return false, false
}

// ws skips JSON whitespace.
func (u *usual) ws() {
	for u.i < len(u.d) {
		switch u.d[u.i] {
		case ' ', '\t', '\n', '\r':
			u.i++
		default:
			return
		}
	}
}

// next skips whitespace and reads c.
func (u *usual) next(c byte) bool {
	u.ws()
	if u.i < len(u.d) && u.d[u.i] == c {
		u.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (u *usual) end() bool {
	u.ws()
	return u.i == len(u.d)
}

// key reads an object's key: printable ASCII without escapes.
func (u *usual) key() ([]byte, bool) {
	if !u.next('"') {
		return nil, false
	}
	start := u.i
	for u.i < len(u.d) {
		c := u.d[u.i]
		switch {
		case c == '"':
			u.i++
			return u.d[start : u.i-1], true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return nil, false
		}
		u.i++
	}
	return nil, false
}

// str reads a string value: valid UTF-8, escapes other than \u unescaped.
// Runs of plain bytes are skipped 8 at a time.
func (u *usual) str() (string, bool) {
	d := u.d
	if u.i >= len(d) || d[u.i] != '"' {
		return "", false
	}
	start := u.i + 1
	from := start // the plain run not yet copied to esc
	escaped := false
	var high uint64 // every byte ORed: bit 7 set when one is not ASCII
	for i := start; ; {
		for i+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[i:])
			if special(w) {
				break
			}
			high |= w
			i += 8
		}
		for i < len(d) && d[i] != '"' && d[i] != '\\' && d[i] >= 0x20 {
			high |= uint64(d[i])
			i++
		}
		switch {
		case i >= len(d) || d[i] < 0x20:
			return "", false
		case d[i] == '"':
			u.i = i + 1
			if high&0x8080808080808080 != 0 && !utf8.Valid(d[start:i]) {
				return "", false
			}
			if !escaped {
				return string(d[start:i]), true
			}
			u.esc = append(u.esc, d[from:i]...)
			return string(u.esc), true
		}
		if !escaped {
			escaped, u.esc = true, u.esc[:0]
		}
		u.esc = append(u.esc, d[from:i]...)
		if i+1 >= len(d) {
			return "", false
		}
		switch e := d[i+1]; e {
		case '"', '\\', '/':
			u.esc = append(u.esc, e)
		case 'b':
			u.esc = append(u.esc, '\b')
		case 'f':
			u.esc = append(u.esc, '\f')
		case 'n':
			u.esc = append(u.esc, '\n')
		case 'r':
			u.esc = append(u.esc, '\r')
		case 't':
			u.esc = append(u.esc, '\t')
		default:
			return "", false // \u, or not an escape
		}
		i += 2
		from = i
	}
}

// special reports whether the 8 bytes of w hold a quote, a backslash or a
// control character (each test is exact: x has a zero byte iff
// (x-0x01..)&^x&0x80.. is not zero, and a byte under 0x20 likewise).
func special(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b := w^(ones*'"'), w^(ones*'\\')
	return ((q-ones)&^q|(b-ones)&^b|(w-ones*0x20)&^w)&highs != 0
}

func (u *usual) strPtr() (*string, bool) {
	s, ok := u.str()
	return &s, ok
}

// number reads a number as JSON writes it, returning its text.
func (u *usual) number() ([]byte, bool) {
	d, start := u.d, u.i
	i := u.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	// digits is where the run of digits from j ends.
	digits := func(j int) int {
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
		return j
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(i)
	default:
		return nil, false
	}
	if i < len(d) && d[i] == '.' {
		j := i + 1
		if i = digits(j); i == j {
			return nil, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		if i = digits(i); i == j {
			return nil, false
		}
	}
	u.i = i
	return d[start:i], true
}

func (u *usual) float() (float64, bool) {
	b, ok := u.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	return f, err == nil
}

// intPtr reads an integer: digits only, in range.
func (u *usual) intPtr() (*int, bool) {
	b, ok := u.number()
	if !ok {
		return nil, false
	}
	n, err := strconv.ParseInt(unsafe.String(unsafe.SliceData(b), len(b)), 10, strconv.IntSize)
	v := int(n)
	return &v, err == nil
}

func (u *usual) boolean() (bool, bool) {
	switch {
	case len(u.d)-u.i >= 4 && string(u.d[u.i:u.i+4]) == "true":
		u.i += 4
		return true, true
	case len(u.d)-u.i >= 5 && string(u.d[u.i:u.i+5]) == "false":
		u.i += 5
		return false, true
	}
	return false, false
}
