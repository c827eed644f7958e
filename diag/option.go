package diag

import (
	"errors"
	"strings"
)

// OptionError is an option of a library call that is refused: out of
// range, malformed, or given with another it excludes or needs. Options
// are named as in JSON ("out_topics"), so a command line can name its own
// flags instead (see Named).
type OptionError struct {
	Options []string // the options concerned, in the order they are named
	Value   string   // the value refused, as echoed (quoted when it should be); empty when none
	Msg     string   // what is wrong, as it follows the names: ": give one", " go together"
}

// Error names the options in words: `write batch and read batch: give one`.
func (e *OptionError) Error() string {
	return e.Named(func(o string) string { return strings.ReplaceAll(o, "_", " ") })
}

// Named is the message with every option named by name(option), as
// `--write-batch and --read-batch: give one`.
func (e *OptionError) Named(name func(string) string) string {
	var b strings.Builder
	for i, o := range e.Options {
		if i > 0 {
			b.WriteString(" and ")
		}
		b.WriteString(name(o))
	}
	if e.Value != "" {
		b.WriteString(" " + e.Value)
	}
	b.WriteString(e.Msg)
	return b.String()
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
