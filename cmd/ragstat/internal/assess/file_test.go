package assess

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/ragstat/ragstat/internal/diag"
)

// TestServeFileGrades: the scale of a new database comes from grades; a
// malformed one is refused before any database is made.
func TestServeFileGrades(t *testing.T) {
	for _, c := range []struct {
		grades, scale string
		refused       bool
	}{
		{"", "0..3", false},
		{"0..5", "0..5", false},
		{"3..0", "", true},
	} {
		t.Run(c.grades, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.db")
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			err := ServeFile(ctx, path, c.grades, task(t, 2), RunOptions{Addr: "127.0.0.1:0", Out: io.Discard})
			var oe *diag.OptionError
			if c.refused {
				if !errors.As(err, &oe) || oe.Option != "grades" {
					t.Fatalf("got %v, want an error on grades", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			db := openDB(t, path)
			defer db.Close()
			if got := db.Scale().String(); got != c.scale {
				t.Errorf("scale %s, want %s", got, c.scale)
			}
		})
	}
}
