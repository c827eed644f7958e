// Package sharedtest holds what the tests of several packages share: the
// public data sets they read from the shared folder beside the repository
// (../shared), present in CI, maybe not on a contributor's machine, the
// small inputs they write, and the check of a table case's error.
package sharedtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir returns ../shared/sub (relative to the module root). When it is
// absent the test is skipped, saying so with the word "skipped:" that
// every skip for a missing need starts with (go test -v ... | grep
// skipped: lists them), except under CI, where it fails.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil || filepath.Base(dir) != "e2e" {
				break
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", sub)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing: CI must have the shared data beside the repository", p)
		}
		t.Skipf("skipped: %s needs %s, which is not present (public data sets beside the clone, for the extended checks)", t.Name(), p)
	}
	return p
}

// Qrels are judgments of two queries, refund and limits, in TREC's format:
// graded 3 down to 0, and 3 down to 0 with no grade 1.
const Qrels = `refund 0 policy 3
refund 0 exception 2
refund 0 overview 1
refund 0 noise 0
limits 0 limit 3
limits 0 scope 2
limits 0 noise 0
`

// WriteFile writes text to the file name in dir and returns its path.
func WriteFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// WantErr checks err against want, a part of the error a case expects (""
// for none), stopping the test where they disagree, and reports whether an
// error was expected: a table case returns there.
func WantErr(t testing.TB, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatal(err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("error %v, want one containing %q", err, want)
	}
	return want != ""
}
