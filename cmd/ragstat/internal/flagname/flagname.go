// Package flagname names the library's options as the command line's
// flags: the one place where an option (min_grade) becomes a flag
// (--min-grade).
package flagname

import (
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
)

// Flag is the command line's flag for a library option: "--" and the
// option's name with dashes (min_grade: --min-grade).
func Flag(option string) string { return "--" + strings.ReplaceAll(option, "_", "-") }

// Flagged is err's message with every option it names written as the
// command line's flag (diag.Render): the one place where the library's
// options become flags.
func Flagged(err error) string { return diag.Render(err, Flag) }

// Flags is text with every option written {name} named as its flag.
func Flags(text string) string { return diag.Expand(text, Flag) }
