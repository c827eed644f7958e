package settings

import "github.com/ragstat/ragstat/tokenize"

// Tokenizer is the tokenizer name names (tokenize.New's names: an
// encoding, or hf:PATH to a tokenizer.json); "" names none, and Tokenizer
// returns nil. Every command that counts tokens reads its flag here, so
// that a name means one thing everywhere; the defaults are the flags'.
func Tokenizer(name string) (tokenize.Tokenizer, error) {
	if name == "" {
		return nil, nil
	}
	return tokenize.New(name)
}
