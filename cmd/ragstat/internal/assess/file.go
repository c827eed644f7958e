package assess

import (
	"context"
	"fmt"
	"io"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
)

// ServeFile opens the database at path, creating it when missing (on the
// grade scale grades, MIN..MAX; "": judgments.DefaultScale for a new one,
// whichever an existing one holds), serves the task on it until ctx ends
// (Run) and closes it. A malformed grades is a diag.OptionError on
// "grades".
func ServeFile(ctx context.Context, path, grades string, task *Task, opt RunOptions) error {
	var scale *judgments.Scale
	if grades != "" {
		s, err := judgments.ParseScale(grades)
		if err != nil {
			return &diag.OptionError{Option: "grades", Err: err}
		}
		scale = &s
	}
	db, err := Open(path, OpenOptions{Create: true, Scale: scale})
	if err != nil {
		return err
	}
	defer db.Close()
	return Run(ctx, db, task, opt)
}

// Exported says what an export wrote: n judgments, and on a scale other
// than the default the --grades that evaluates them.
func Exported(n int, scale judgments.Scale) string {
	if scale != judgments.DefaultScale {
		return fmt.Sprintf("exported %d judgments on grades %s: evaluate them with --grades %s", n, scale, scale)
	}
	return fmt.Sprintf("exported %d judgments", n)
}

// ExportFile writes the judgments opt selects from the database at path
// (Export) and returns how many it wrote, on which scale.
func ExportFile(ctx context.Context, path string, w io.Writer, opt ExportOptions) (int, judgments.Scale, error) {
	db, err := Open(path, OpenOptions{})
	if err != nil {
		return 0, judgments.Scale{}, err
	}
	defer db.Close()
	n, err := Export(ctx, db, w, opt)
	return n, db.Scale(), err
}

// AgreementFile writes the agreement of every two assessors of the
// database at path, with weights w (Agreement, then WriteAgreement).
func AgreementFile(ctx context.Context, path string, out io.Writer, w Weights) error {
	db, err := Open(path, OpenOptions{})
	if err != nil {
		return err
	}
	defer db.Close()
	grades, err := db.Grades(ctx)
	if err != nil {
		return err
	}
	pairs, err := Agreement(grades, db.Scale(), w)
	if err != nil {
		return err
	}
	return WriteAgreement(out, pairs, db.Scale(), w)
}
