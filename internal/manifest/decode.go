package manifest

import (
	"fmt"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// Decode reads a saved result of kind (KindEval, KindStages, KindCompare)
// from f into doc, strictly: an unknown field or a value of the wrong type
// is an error naming the file, and so is a document whose manifest (as
// manifestOf finds it once doc is filled; nil when missing) is not of kind.
func Decode(f *input.File, kind string, doc any, manifestOf func() *Manifest) error {
	data, err := f.ReadAll()
	if err != nil {
		return err
	}
	if err := jsonin.Decode(data, doc); err != nil {
		return &diag.Error{File: f.Name, Msg: err.Error(), Hint: "give a file written by ragstat " + kind + " --format json"}
	}
	if m := manifestOf(); m == nil || m.Kind != kind {
		return &diag.Error{File: f.Name, Msg: fmt.Sprintf("not a ragstat %s result: no %s manifest", kind, kind),
			Hint: "write it with ragstat " + kind + " --format json"}
	}
	return nil
}
