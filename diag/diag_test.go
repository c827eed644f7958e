package diag

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "f", Line: 3, Query: "q", Item: "d", Msg: "m"}, `f:3: query "q", item "d": m`},
		{Error{File: "f", Msg: "m", Hint: "h"}, `f: m (h)`},
		{Error{Query: "q", Msg: "m"}, `query "q": m`},
		{Error{Msg: "m"}, `m`},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestList(t *testing.T) {
	var l List
	if l.Err() != nil {
		t.Fatal("an empty list is an error")
	}
	one := &Error{File: "f", Line: 2, Msg: "m"}
	l.Add(nil)
	l.Add(one)
	if l.Err() != one {
		t.Errorf("one problem: %v", l.Err())
	}
	var inner List
	for i := range Max + 5 {
		inner.Add(&Error{File: "f", Line: Max + 10 - i, Msg: fmt.Sprint(i)})
	}
	if full := l.Add(&inner); !full || l.Len() != Max+6 || len(l.Errs()) != Max {
		t.Errorf("full %v, Len %d, kept %d", full, l.Len(), len(l.Errs()))
	}
	l.Sort()
	var first *Error
	if !errors.As(l.Err(), &first) || first != one {
		t.Errorf("errors.As finds %v first, want line 2", first)
	}
	if msg := l.Error(); !strings.HasSuffix(msg, "... and 6 more problems (ragstat stops after 20)") {
		t.Errorf("message ends %q", msg[strings.LastIndex(msg, "\n"):])
	}
	var exact List
	for range Max {
		exact.Add(&Error{Msg: "x"})
	}
	if !strings.HasSuffix(exact.Error(), "(ragstat stops after 20 problems)") {
		t.Error("a full list does not say reading stopped")
	}
}
