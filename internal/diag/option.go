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
	msg := e.Named(func(o string) string { return o })
	if e.Scope != "" {
		return e.Scope + ": " + msg
	}
	return msg
}

func (e *OptionError) Unwrap() error { return e.Err }

// Named is the message with every option named by name(option), as
// `--doc-map and --doc-id-pattern apply to --unit doc only`: "Option
// [Value] Msg", or "Option: Err".
func (e *OptionError) Named(name func(option string) string) string {
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
	return head + expand(e.Msg, name)
}

// Literal is s written into an OptionError's Msg as it is: a path or a
// value that may hold braces, which would otherwise read as {option}.
func Literal(s string) string { return strings.ReplaceAll(s, "{", "{{") }

// expand is msg with every {option} written as name(option), and every
// "{{" as "{".
func expand(msg string, name func(option string) string) string {
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

// Flagged is err with the options of an OptionError in it named as
// command-line flags: "--" and the name with dashes (--out-topics). Other
// errors are returned as they are.
func Flagged(err error) error {
	var oe *OptionError
	if !errors.As(err, &oe) {
		return err
	}
	return errors.New(oe.Named(func(o string) string { return "--" + strings.ReplaceAll(o, "_", "-") }))
}
