package assess

import (
	"bytes"
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
)

var at = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// seeded makes a database at a fresh path holding two grades and a span,
// closed, and returns its path.
func seeded(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.db")
	db, err := Open(path, OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, g := range []Grade{{Assessor: "ann", Key: Key{"q1", "d1"}, Grade: 3, At: at}, {Assessor: "ann", Key: Key{"q1", "d2"}, Grade: 0, At: at}} {
		if err := db.SaveGrade(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.AddSpan(ctx, Span{Assessor: "ann", Key: Key{"q1", "d1"}, Text: "thirty days", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// intact checks the seeded grades are all there.
func intact(t *testing.T, path string) {
	t.Helper()
	db, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatalf("reopening: %v", err)
	}
	defer db.Close()
	gs, err := db.Grades(context.Background())
	if err != nil || len(gs) != 2 || gs[0].Grade != 3 || !gs[0].At.Equal(at) {
		t.Errorf("stored grades changed: %+v %v", gs, err)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	path := seeded(t)
	intact(t, path)
	db := openDB(t, path)
	ctx := context.Background()
	db.SaveSkip(ctx, Skip{Assessor: "bob", Key: Key{"q1", "d1"}, At: at})
	if names, _ := db.Assessors(ctx); strings.Join(names, ",") != "ann,bob" {
		t.Errorf("assessors %v", names)
	}
	if err := db.SaveGrade(ctx, Grade{Assessor: "ann", Key: Key{"q", "d"}, Grade: 4}); err == nil {
		t.Error("grade 4 stored")
	}
	if _, err := db.AddSpan(ctx, Span{Assessor: "ann", Key: Key{"q", "d"}, Text: " "}); err == nil {
		t.Error("an empty span stored")
	}
	// A grade clears the skip.
	db.SaveGrade(ctx, Grade{Assessor: "bob", Key: Key{"q1", "d1"}, Grade: 1, At: at})
	if w := work(t, db, "bob"); w.Skipped[Key{"q1", "d1"}] || w.Grades[Key{"q1", "d1"}].Grade != 1 {
		t.Errorf("bob's work %+v", w)
	}
}

func TestOpenRefusesWhatIsNotOurs(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte("these are not the judgments you are looking for\n"), 0o644)
	other := filepath.Join(dir, "other.db")
	raw, err := sql.Open("sqlite", "file:"+other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("CREATE TABLE invoices (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	for _, c := range []struct{ path, want string }{
		{garbage, "is not a SQLite database"},
		{other, "another application"},
		{filepath.Join(dir, "missing.db"), "no such database"},
		{dir, "is a directory"},
	} {
		before, _ := os.ReadFile(c.path)
		_, err := Open(c.path, OpenOptions{Create: c.path != filepath.Join(dir, "missing.db")})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", filepath.Base(c.path), err, c.want)
		}
		if after, _ := os.ReadFile(c.path); !bytes.Equal(before, after) {
			t.Errorf("%s was changed by a failed open", filepath.Base(c.path))
		}
	}
}

func TestOpenDamaged(t *testing.T) {
	path := seeded(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Overwrite every page after the first (the schema) with noise.
	for i := 4096; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	os.WriteFile(path, b, 0o644)
	_, err = Open(path, OpenOptions{Create: true})
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a damaged database: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(b, after) {
		t.Error("the damaged database was changed")
	}
}

func TestReadOnly(t *testing.T) {
	path := seeded(t)
	// SQLite's own read-only mode: what a file the process cannot write gives.
	_, err := Open(path, OpenOptions{Create: true, readOnly: true})
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("read-only mode: %v", err)
	}
	if os.Geteuid() != 0 { // root writes whatever the mode bits say
		os.Chmod(path, 0o444)
		_, err := Open(path, OpenOptions{Create: true})
		if err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("a 0444 file: %v", err)
		}
		os.Chmod(path, 0o644)
	}
	intact(t, path)
}

// TestLocked: while another process holds the write lock, opening to write
// fails after the busy timeout with a message that says so, a grade posted
// to a running server is answered "not saved", and once the lock is gone
// everything stored before is there and new grades save.
func TestLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the 5 s busy timeout")
	}
	path := seeded(t)
	db := openDB(t, path)
	a := startWith(t, db, task(t, 2), "")
	locker, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	conn, err := locker.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	openErr := make(chan error, 1)
	go func() {
		_, err := Open(path, OpenOptions{Create: true})
		openErr <- err
	}()
	resp := a.grade(t, "ann", 1, 2)
	if resp.StatusCode != 503 {
		t.Errorf("a grade while locked: %d", resp.StatusCode)
	}
	if err := <-openErr; err == nil || !strings.Contains(err.Error(), "locked by another process") {
		t.Errorf("opening a locked database: %v", err)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	if resp := a.grade(t, "ann", 1, 2); resp.StatusCode != 303 {
		t.Errorf("a grade after the lock: %d", resp.StatusCode)
	}
	if n := len(work(t, db, "ann").Grades); n != 3 {
		t.Errorf("%d grades after the lock, want 3", n)
	}
}

func TestQueueProblems(t *testing.T) {
	cs, ts, _ := fixture(t, 3)
	read := func(s string) ([]pool.Entry, error) {
		return pool.ReadQueue(input.FromBytes("queue.jsonl", []byte(s)))
	}
	if _, err := read(`{"query":"refund","item":"p1","systems":["a"],"order":1}` + "\n" + `{"query":"refund","item":"p1","systems":["b"],"order":2}` + "\n"); err == nil ||
		err.Error() != `queue.jsonl:2: query "refund", item "p1": duplicate queue entry (also line 1) (each (query, item) pair is judged once: remove the repeated line)` {
		t.Errorf("duplicate entry: %v", err)
	}
	q, err := read(`{"query":"refund","item":"p1","systems":[],"order":1}` + "\n" +
		`{"query":"refund","item":"ghost","systems":[],"order":2}` + "\n" +
		`{"query":"nope","item":"p1","systems":[],"order":3}` + "\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewTask("queue.jsonl", q, cs, ts)
	if err == nil {
		t.Fatal("missing items accepted")
	}
	for _, want := range []string{`queue.jsonl:2: query "refund", item "ghost": item is not in the corpus corpus.jsonl`, `queue.jsonl:3: query "nope", item "p1": query is not in the topics file topics.jsonl`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestDSN: the path is escaped, so a name with ? or # stays a name.
func TestDSN(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "odd?name#1.db")
	db := openDB(t, path)
	db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not at %s: %v", path, err)
	}
	if !strings.Contains(dsn(path, false), url.PathEscape("odd?name#1.db")) {
		t.Errorf("dsn %s", dsn(path, false))
	}
}

// TestStoreScales: the scale given when a database is created is stored in
// it; every grade on it is kept, every grade off it refused (by the store
// and by SQLite's CHECK); reopening without a scale reads it back, with
// another one is refused; export merges on it.
func TestStoreScales(t *testing.T) {
	ctx := context.Background()
	for _, s := range []judgments.Scale{{Min: 0, Max: 1}, {Min: 0, Max: 4}, {Min: -2, Max: 2}} {
		t.Run(s.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.db")
			db, err := Open(path, OpenOptions{Create: true, Scale: &s})
			if err != nil {
				t.Fatal(err)
			}
			for v := s.Min; v <= s.Max; v++ {
				for _, who := range []string{"ann", "bob"} {
					g := v
					if who == "bob" {
						g = s.Max - (v - s.Min)
					}
					if err := db.SaveGrade(ctx, Grade{Assessor: who, Key: Key{"q", string(rune('a' + v - s.Min))}, Grade: g, At: at}); err != nil {
						t.Fatalf("grade %d: %v", g, err)
					}
				}
			}
			for _, v := range []int{s.Min - 1, s.Max + 1} {
				if err := db.SaveGrade(ctx, Grade{Assessor: "ann", Key: Key{"q", "x"}, Grade: v, At: at}); err == nil || !strings.Contains(err.Error(), "outside this database's scale "+s.String()) {
					t.Errorf("grade %d: %v", v, err)
				}
				if _, err := db.w.ExecContext(ctx, "INSERT INTO grades (assessor, query, item, grade, at) VALUES ('ann', 'q', 'y', ?, '')", v); err == nil {
					t.Errorf("SQLite kept grade %d", v)
				}
			}
			db.Close()
			other := judgments.Scale{Min: s.Min, Max: s.Max + 1}
			if _, err := Open(path, OpenOptions{Create: true, Scale: &other}); err == nil || !strings.Contains(err.Error(), "holds grades on the scale "+s.String()+", not "+other.String()) {
				t.Errorf("resumed with %s: %v", other, err)
			}
			db, err = Open(path, OpenOptions{Scale: &s})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if db.Scale() != s {
				t.Errorf("stored scale %s", db.Scale())
			}
			var b strings.Builder
			if _, err := Export(ctx, db, &b, ExportOptions{Format: "trec", Merge: MergeMax}); err != nil {
				t.Fatal(err)
			}
			// ann and bob grade each pair at mirror ends of the scale.
			if first := strings.SplitN(b.String(), "\n", 2)[0]; first != "q 0 a "+strconv.Itoa(s.Max) {
				t.Errorf("merged max: %q", first)
			}
			gs, _ := db.Grades(ctx)
			pairs, err := Agreement(gs, db.Scale(), Linear)
			if err != nil || len(pairs) != 1 || len(pairs[0].Matrix) != s.Max-s.Min+1 || pairs[0].Matrix[0][s.Max-s.Min] != 1 {
				t.Errorf("agreement %+v %v", pairs, err)
			}
		})
	}
}

// TestStoreWithoutScale: a database written before the scale was stored
// (schema 1, no "grades" in meta) is graded 0..3.
func TestStoreWithoutScale(t *testing.T) {
	path := seeded(t)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("DELETE FROM meta WHERE key = 'grades'; PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	intact(t, path)
	db := openDB(t, path)
	if db.Scale() != judgments.DefaultScale {
		t.Errorf("scale %s", db.Scale())
	}
	if err := db.SaveGrade(context.Background(), Grade{Assessor: "ann", Key: Key{"q", "d"}, Grade: 4}); err == nil {
		t.Error("grade 4 stored")
	}
	four := judgments.Scale{Min: 0, Max: 4}
	if _, err := Open(path, OpenOptions{Create: true, Scale: &four}); err == nil {
		t.Error("a schema 1 database resumed on 0..4")
	}
}
