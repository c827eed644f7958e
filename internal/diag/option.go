package diag

import (
	"errors"
	"strings"
)

// OptionError is an option or setting of a library call that is refused:
// missing, out of range, malformed, or at odds with another. Option is its
// name as in JSON ("min_grade", "out_topics"), and Msg names any other
// option as {name}, so a command line can name its own flags instead (see
// Named and Flagged).
type OptionError struct {
	Scope  string // what the option belongs to, leading Error's message ("policy"); "" for none
	Option string // the option refused; "" when Msg says it all
	Value  string // the value refused, as echoed (quoted when it should be); "" when none
	Msg    string // what is wrong: after a space, or directly when it starts with ':'
	Err    error  // the cause, written after "Option: " when Msg is empty
}

// Error is the message with options named as in JSON, after the scope:
// `policy: give doc_map or doc_id_pattern, not both`.
func (e *OptionError) Error() string {
	msg := e.Named(nil)
	if e.Scope != "" {
		return e.Scope + ": " + msg
	}
	return msg
}

func (e *OptionError) Unwrap() error { return e.Err }

// Named is the message with every option named by name(option), as
// `--doc-map and --doc-id-pattern apply to --unit doc only`: "Option
// [Value] Msg", or "Option: Err"; nil names each option as it is.
func (e *OptionError) Named(name func(option string) string) string {
	if name == nil {
		name = asIs
	}
	var words []string
	if e.Option != "" {
		words = append(words, name(e.Option))
	}
	if e.Err != nil {
		return strings.Join(words, "") + ": " + e.Err.Error()
	}
	if e.Value != "" {
		words = append(words, e.Value)
	}
	head := strings.Join(words, " ")
	if head != "" && e.Msg != "" && e.Msg[0] != ':' {
		head += " "
	}
	return head + Expand(e.Msg, name)
}

func asIs(option string) string { return option }

// Literal is s written into an OptionError's Msg as it is: a path or a
// value that may hold braces, which would otherwise read as {option}.
func Literal(s string) string { return strings.ReplaceAll(s, "{", "{{") }

// Expand is msg with every {option} written as name(option) (nil: the
// option's own name), and every "{{" as "{": library messages name options
// so, and a command line writes its flags for them.
func Expand(msg string, name func(option string) string) string {
	if name == nil {
		name = asIs
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(msg, '{')
		if open < 0 {
			break
		}
		if strings.HasPrefix(msg[open:], "{{") {
			b.WriteString(msg[:open+1])
			msg = msg[open+2:]
			continue
		}
		end := strings.IndexByte(msg[open:], '}')
		if end < 0 {
			break
		}
		if option := msg[open+1 : open+end]; isName(option) {
			b.WriteString(msg[:open] + name(option))
			msg = msg[open+end+1:]
		} else {
			b.WriteString(msg[:open+1])
			msg = msg[open+1:]
		}
	}
	return b.String() + msg
}

// isName reports whether s can name an option: lower-case letters,
// digits and underscores.
func isName(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

// Render is err's message with every option it names written by name:
// an OptionError's own message (named, whatever wraps it), or else err's
// message with the hints of every Error and List in it named.
func Render(err error, name func(option string) string) string {
	if err == nil {
		return ""
	}
	if oe, ok := errors.AsType[*OptionError](err); ok {
		return oe.Named(name)
	}
	msg := err.Error()
	var walk func(error)
	walk = func(e error) {
		if n, ok := e.(interface {
			Named(func(string) string) string
		}); ok {
			msg = strings.Replace(msg, e.Error(), n.Named(name), 1)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			if inner := u.Unwrap(); inner != nil {
				walk(inner)
			}
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner)
			}
		}
	}
	walk(err)
	return msg
}
