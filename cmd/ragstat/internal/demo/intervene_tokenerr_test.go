package demo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/intervene"
	"github.com/ragstat/ragstat/tokenize"
)

// failing is a tokenizer whose counts were cut short (tokenize.Err), as a
// Hugging Face tokenizer's is when a Split pattern runs past its budget.
type failing struct{ tokenize.Tokenizer }

func (failing) Err() error { return errors.New("regex took longer than its budget") }

// TestTokenizerErr: a run whose token counts were cut short fails, naming
// why, rather than reporting budgets measured with wrong counts.
func TestTokenizerErr(t *testing.T) {
	opt, traces := options(t, demo.Reader{})
	opt.Tokenizer = failing{opt.Tokenizer}
	if _, err := intervene.Run(context.Background(), traces, opt); err == nil || !strings.Contains(err.Error(), "longer than its budget") {
		t.Errorf("got %v, want the tokenizer's error", err)
	}
}
