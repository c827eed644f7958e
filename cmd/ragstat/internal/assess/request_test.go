package assess

import (
	"bytes"
	"context"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

// writeFiles writes each name's text into dir and returns the paths.
func writeFiles(t *testing.T, dir string, texts map[string]string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for name, text := range texts {
		paths[name] = sharedtest.WriteFile(t, dir, name, text)
	}
	return paths
}

// TestServeRequest: Run builds the task from the files, serves it until
// ctx ends and then says so under the logger's prefix; a database that
// is one of the files, or a malformed scale, is refused before serving.
func TestServeRequest(t *testing.T) {
	dir := t.TempDir()
	in := writeFiles(t, dir, map[string]string{
		"queue.jsonl":  `{"query":"refund","item":"p1","systems":["bm25"],"order":1}` + "\n",
		"corpus.jsonl": `{"id":"p1","text":"Refunds take 30 days."}` + "\n",
		"topics.jsonl": `{"id":"refund","text":"How long do refunds take?"}` + "\n",
	})
	db := filepath.Join(dir, "j.db")
	for _, c := range []struct {
		name, db, grades string
		out, log, err    string
	}{
		{name: "served", db: db, out: "1 passages to judge, grades 0..3. Open http://127.0.0.1:",
			log: "judge: stopped; every acknowledged grade is in " + db + "\n"},
		{name: "database over the queue", db: in["queue.jsonl"], err: "--db " + in["queue.jsonl"] + " is the same file as the input --queue"},
		{name: "malformed scale", db: filepath.Join(dir, "new.db"), grades: "3..0", err: "grades: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var out, logged bytes.Buffer
			err := ServeRequest{DB: c.db, Queue: in["queue.jsonl"], Corpus: in["corpus.jsonl"], Topics: in["topics.jsonl"], Grades: c.grades}.
				Run(ctx, strings.NewReader(""), &out, log.New(&logged, "judge: ", log.LstdFlags))
			if sharedtest.WantErr(t, err, c.err) {
				if logged.Len() > 0 {
					t.Fatalf("log %q beside the error", logged.String())
				}
				return
			}
			if !strings.HasPrefix(out.String(), c.out) || logged.String() != c.log {
				t.Errorf("out %q, log %q; want %q..., %q", out.String(), logged.String(), c.out, c.log)
			}
		})
	}
}

// TestExportRequest: Run writes the export to its file and notes what it
// wrote; an output that exists is replaced only when forced, and on an
// error nothing is noted.
func TestExportRequest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j.db")
	db, err := Open(path, OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SaveGrade(context.Background(), Grade{Assessor: "ann", Key: Key{"q1", "d1"}, Grade: 2, At: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	existing := writeFiles(t, dir, map[string]string{"old.txt": "old\n"})["old.txt"]
	for _, c := range []struct {
		name, out       string
		force           bool
		written, stdout string
		err             string
	}{
		{name: "to a file", out: filepath.Join(dir, "qrels.txt"), written: "q1 0 d1 2\n"},
		{name: "to stdout", out: "-", stdout: "q1 0 d1 2\n"},
		{name: "existing, unforced", out: existing, err: "the file exists"},
		{name: "existing, forced", out: existing, force: true, written: "q1 0 d1 2\n"},
		{name: "over the database", out: path, force: true, err: "is the same file as the input --db"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout bytes.Buffer
			var notes []string
			err := ExportRequest{DB: path, ExportOptions: ExportOptions{Format: "trec"}, Out: c.out, Force: c.force}.
				Run(context.Background(), &stdout, func(l ...string) { notes = append(notes, l...) })
			if sharedtest.WantErr(t, err, c.err) {
				if len(notes) > 0 {
					t.Fatalf("notes %q beside the error", notes)
				}
				return
			}
			if c.written != "" {
				if b, err := os.ReadFile(c.out); err != nil || string(b) != c.written {
					t.Errorf("wrote %q, %v; want %q", b, err, c.written)
				}
			}
			if stdout.String() != c.stdout || strings.Join(notes, "|") != "exported 1 judgments" {
				t.Errorf("stdout %q, notes %q", stdout.String(), notes)
			}
		})
	}
}

// TestValidAssessor checks ValidAssessor against the rule written as a
// regular expression, on chosen names and on random ones over an alphabet
// of the edge cases.
func TestValidAssessor(t *testing.T) {
	rule := regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,63}$`)
	want := func(name string) bool {
		return rule.MatchString(name) && strings.TrimSpace(name) == name
	}
	names := []string{"", "a", "Ann", "ann smith", "a.b_c-d", " ann", "ann ", "-ann", ".", "9", "Ⅻ", "é", "名前", "a\tb",
		"a\nb", "a/b", "a\xffb", strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("é", 64), strings.Repeat("é", 65)}
	alphabet := []string{"a", "Z", "7", "é", "Ⅻ", "²", " ", ".", "_", "-", "/", "\t", "\xff", "\u00a0"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(70) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		names = append(names, b.String())
	}
	for _, name := range names {
		if got := ValidAssessor(name); got != want(name) {
			t.Errorf("ValidAssessor(%q) = %v, want %v", name, got, want(name))
		}
	}
}
