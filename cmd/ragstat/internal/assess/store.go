// Package assess is the relevance-assessment app behind `ragstat judge`: a
// SQLite store of grades (on the scale stored with the database), skips and
// supporting spans (several assessors keep separate grades; every write is
// committed before it is acknowledged), a local web server that shows one
// query and one passage at a time, and the export of the grades as
// judgments together with the agreement between assessors.
package assess

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"modernc.org/sqlite"

	"github.com/ragstat/ragstat/judgments"
)

// Key names one (query, item) pair.
type Key struct{ Query, Item string }

// Grade is one assessor's grade for one pair.
type Grade struct {
	Assessor string
	Key
	Grade int // on the session's scale (DB.Scale)
	Note  string
	At    time.Time
}

// Skip records that an assessor passed over a pair for now.
type Skip struct {
	Assessor string
	Key
	Note string
	At   time.Time
}

// Span is text of a passage that an assessor marked as supporting, for one
// fact of the topic or (Fact empty) for the query as a whole.
type Span struct {
	ID       int64
	Assessor string
	Key
	Fact string
	Text string
	At   time.Time
}

// Work is what one assessor has done so far.
type Work struct {
	Grades  map[Key]Grade
	Skipped map[Key]bool
}

// Store is what the server needs from storage. Every method that writes
// returns only once the write is committed.
type Store interface {
	SaveGrade(ctx context.Context, g Grade) error
	SaveSkip(ctx context.Context, s Skip) error
	AddSpan(ctx context.Context, s Span) (int64, error)
	DeleteSpan(ctx context.Context, assessor string, id int64, at time.Time) error
	Work(ctx context.Context, assessor string) (*Work, error)
	Spans(ctx context.Context, assessor string, k Key) ([]Span, error)
	Assessors(ctx context.Context) ([]string, error)
	Scale() judgments.Scale // the grades the session allows
}

// MaxScaleGrades bounds the grades of a session's scale (one button each).
const MaxScaleGrades = 101

// CheckScale says whether the app can judge on scale s.
func CheckScale(s judgments.Scale) error {
	if s.Min > s.Max || int64(s.Max)-int64(s.Min)+1 > MaxScaleGrades {
		return fmt.Errorf("grade scale %s: the assessment app takes from 1 to %d grades, MIN <= MAX", s, MaxScaleGrades)
	}
	return nil
}

// applicationID marks a ragstat judgments database ("RGST").
const applicationID = 0x52475354

// schemaVersion 2 stores the grade scale under meta's "grades" key; a
// version 1 database has none and is graded 0..3.
const schemaVersion = 2

// schema is filled with the scale's MIN and MAX.
const schema = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE grades (
	assessor TEXT NOT NULL, query TEXT NOT NULL, item TEXT NOT NULL,
	grade INTEGER NOT NULL CHECK (grade BETWEEN %d AND %d),
	note TEXT NOT NULL DEFAULT '', at TEXT NOT NULL,
	PRIMARY KEY (assessor, query, item)) STRICT;
CREATE TABLE skips (
	assessor TEXT NOT NULL, query TEXT NOT NULL, item TEXT NOT NULL,
	note TEXT NOT NULL DEFAULT '', at TEXT NOT NULL,
	PRIMARY KEY (assessor, query, item)) STRICT;
CREATE TABLE spans (
	id INTEGER PRIMARY KEY,
	assessor TEXT NOT NULL, query TEXT NOT NULL, item TEXT NOT NULL,
	fact TEXT NOT NULL DEFAULT '', text TEXT NOT NULL CHECK (length(text) > 0),
	at TEXT NOT NULL) STRICT;
CREATE INDEX spans_by_pair ON spans (assessor, query, item);
CREATE TABLE log (
	id INTEGER PRIMARY KEY, at TEXT NOT NULL, action TEXT NOT NULL,
	assessor TEXT NOT NULL, query TEXT NOT NULL, item TEXT NOT NULL,
	grade INTEGER, detail TEXT NOT NULL DEFAULT '') STRICT;
`

// DB is the SQLite judgments store: WAL journal, full sync, a busy timeout
// of 5 s, immediate write transactions. It is safe for concurrent use;
// writes are serialised on one connection, reads use several.
type DB struct {
	path   string
	writer bool // opened to write: Open checks it can
	scale  judgments.Scale
	w, r   *sql.DB
}

var _ Store = (*DB)(nil)

// OpenOptions say how to open a store.
type OpenOptions struct {
	Create bool // create the file and the schema when missing; check it can be written
	// Scale is the session's grade scale: stored in a new database (nil:
	// judgments.DefaultScale); an existing one must hold the same (nil:
	// whichever it holds).
	Scale    *judgments.Scale
	readOnly bool // tests: open as SQLite's read-only mode does
}

// Open opens the judgments database at path and checks it: a file that is
// not SQLite, a SQLite file of another application, a damaged database, a
// locked or read-only one are errors that say so, and nothing in the file
// is changed by a failed open.
func Open(path string, opt OpenOptions) (*DB, error) {
	if opt.Scale != nil {
		if err := CheckScale(*opt.Scale); err != nil {
			return nil, err
		}
	}
	if err := checkFile(path, opt.Create); err != nil {
		return nil, err
	}
	db := &DB{path: path, writer: opt.Create}
	if err := db.probe(); err != nil {
		return nil, err
	}
	var err error
	if db.w, err = sql.Open("sqlite", dsn(path, opt.readOnly)); err != nil {
		return nil, db.explain(err)
	}
	db.w.SetMaxOpenConns(1) // one writer: requests queue here, not in SQLite's busy loop
	if db.r, err = sql.Open("sqlite", dsn(path, opt.readOnly)); err != nil {
		db.w.Close()
		return nil, db.explain(err)
	}
	db.r.SetMaxOpenConns(4)
	if err := db.init(context.Background(), opt.Scale); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func dsn(path string, readOnly bool) string {
	q := "_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)&_txlock=immediate"
	if readOnly {
		q += "&mode=ro"
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q
}

// checkFile looks at the file before SQLite does, so that a file of another
// kind is reported and never touched.
func checkFile(path string, create bool) error {
	if strings.TrimSpace(path) == "" {
		return fmt.Errorf("no database path: give --db FILE")
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && create:
		return nil
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: no such database", path)
	case err != nil:
		return fmt.Errorf("%s: %v", path, err)
	case st.IsDir():
		return fmt.Errorf("%s is a directory, not a database", path)
	case st.Size() == 0:
		return nil // SQLite treats an empty file as a new database
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	defer f.Close()
	head := make([]byte, 16)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != "SQLite format 3\x00" {
		return fmt.Errorf("%s is not a SQLite database (or its header is damaged); it was left as it is: give another --db or restore it from a copy", path)
	}
	return nil
}

// probe looks into an existing database read-only and without the WAL
// pragma (which would rewrite the header of another application's file):
// it must be empty or ragstat's.
func (db *DB) probe() error {
	if st, err := os.Stat(db.path); err != nil || st.Size() == 0 {
		return nil
	}
	raw, err := sql.Open("sqlite", "file:"+(&url.URL{Path: db.path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return db.explain(err)
	}
	defer raw.Close()
	var app, tables int
	if err := raw.QueryRow("PRAGMA application_id").Scan(&app); err != nil {
		return db.explain(err)
	}
	if err := raw.QueryRow("SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return db.explain(err)
	}
	if app != applicationID && (app != 0 || tables > 0) {
		return fmt.Errorf("%s is a SQLite database of another application, not ragstat judgments; it was left as it is", db.path)
	}
	return nil
}

// init checks the database is ragstat's, creates the schema in a new one and
// runs a quick integrity check; opened to write, it makes one write, so a
// read-only or locked database fails here and not at the first grade.
func (db *DB) init(ctx context.Context, scale *judgments.Scale) error {
	var app, version int
	if err := db.w.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return db.explain(err)
	}
	if err := db.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return db.explain(err)
	}
	var tables int
	if err := db.w.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return db.explain(err)
	}
	switch {
	case app == 0 && tables == 0:
		if err := db.create(ctx, cmp.Or(scale, &judgments.DefaultScale)); err != nil {
			return err
		}
	case app != applicationID:
		return fmt.Errorf("%s is a SQLite database of another application, not ragstat judgments; it was left as it is", db.path)
	case version > schemaVersion:
		return fmt.Errorf("%s was written by a newer ragstat (schema %d, this one knows %d): upgrade ragstat", db.path, version, schemaVersion)
	}
	var check string
	if err := db.r.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check); err != nil {
		return db.explain(err)
	}
	if check != "ok" {
		return fmt.Errorf("%s is damaged (SQLite's integrity check: %s); it was left as it is: restore it from a copy", db.path, check)
	}
	if err := db.readScale(ctx); err != nil {
		return err
	}
	if scale != nil && *scale != db.scale {
		return fmt.Errorf("%s holds grades on the scale %s, not %s: resume it with --grades %s (or omit --grades), or start a new database", db.path, db.scale, scale, db.scale)
	}
	if db.writer {
		return db.CheckWritable(ctx)
	}
	return nil
}

func (db *DB) create(ctx context.Context, scale *judgments.Scale) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(schema, scale.Min, scale.Max)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", applicationID, schemaVersion)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES ('created', ?), ('grades', ?)", stamp(time.Now()), scale.String())
		return err
	})
}

// readScale reads the stored scale; a database without one (schema 1) is
// graded on judgments.DefaultScale.
func (db *DB) readScale(ctx context.Context) error {
	var v string
	err := db.r.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'grades'").Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		db.scale = judgments.DefaultScale
		return nil
	} else if err != nil {
		return db.explain(err)
	}
	s, err := judgments.ParseScale(v)
	if err == nil {
		err = CheckScale(s)
	}
	if err != nil {
		return fmt.Errorf("%s is damaged: its stored %v", db.path, err)
	}
	db.scale = s
	return nil
}

// Scale is the grade scale of the session the database holds.
func (db *DB) Scale() judgments.Scale { return db.scale }

// CheckWritable makes a write that changes nothing, so that a read-only or
// locked database is reported before an assessor starts.
func (db *DB) CheckWritable(ctx context.Context) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES ('probe', '') ON CONFLICT (key) DO UPDATE SET value = ''")
		return err
	})
}

// Close closes the database.
func (db *DB) Close() error {
	var errs []error
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	if db.w != nil {
		errs = append(errs, db.w.Close())
	}
	return errors.Join(errs...)
}

// tx runs fn in a write transaction and commits it.
func (db *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return db.explain(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return db.explain(err)
	}
	return db.explain(tx.Commit())
}

// SQLite's primary result codes that deserve their own message.
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// ErrBusy is wrapped by errors from a database another process keeps locked.
var ErrBusy = errors.New("database is locked")

// explain turns SQLite's result codes into messages that say what to do.
func (db *DB) explain(err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqliteBusy, sqliteLocked:
		return fmt.Errorf("%s: %w by another process for more than 5 s (is another program writing to it?): %v", db.path, ErrBusy, err)
	case sqliteReadOnly:
		return fmt.Errorf("%s is read-only (%v): make the file and its directory writable, or copy it somewhere writable", db.path, err)
	case sqliteCorrupt, sqliteNotADB:
		return fmt.Errorf("%s is damaged or not a database (%v); restore it from a copy", db.path, err)
	case sqliteFull:
		return fmt.Errorf("%s: the disk is full (%v)", db.path, err)
	case sqliteCantOpen, sqliteIOErr:
		return fmt.Errorf("%s cannot be opened or written (%v): check the path, its directory and permissions", db.path, err)
	}
	return fmt.Errorf("%s: %w", db.path, err)
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func unstamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// SaveGrade stores g, replacing the assessor's earlier grade for the pair
// and any skip of it, and logs it. It returns once committed.
func (db *DB) SaveGrade(ctx context.Context, g Grade) error {
	if !db.scale.Contains(g.Grade) {
		return fmt.Errorf("grade %d is outside this database's scale %s", g.Grade, db.scale)
	}
	at := stamp(g.At)
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO grades (assessor, query, item, grade, note, at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (assessor, query, item) DO UPDATE SET grade = excluded.grade, note = excluded.note, at = excluded.at`,
			g.Assessor, g.Query, g.Item, g.Grade, g.Note, at); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM skips WHERE assessor = ? AND query = ? AND item = ?", g.Assessor, g.Query, g.Item); err != nil {
			return err
		}
		return logAction(ctx, tx, at, "grade", g.Assessor, g.Key, &g.Grade, g.Note)
	})
}

func logAction(ctx context.Context, tx *sql.Tx, at, action, assessor string, k Key, grade *int, detail string) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO log (at, action, assessor, query, item, grade, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
		at, action, assessor, k.Query, k.Item, grade, detail)
	return err
}

// SaveSkip records a skip; a pair already graded keeps its grade.
func (db *DB) SaveSkip(ctx context.Context, s Skip) error {
	at := stamp(s.At)
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO skips (assessor, query, item, note, at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (assessor, query, item) DO UPDATE SET note = excluded.note, at = excluded.at`,
			s.Assessor, s.Query, s.Item, s.Note, at); err != nil {
			return err
		}
		return logAction(ctx, tx, at, "skip", s.Assessor, s.Key, nil, s.Note)
	})
}

// AddSpan stores a supporting span and returns its id.
func (db *DB) AddSpan(ctx context.Context, s Span) (int64, error) {
	if strings.TrimSpace(s.Text) == "" {
		return 0, fmt.Errorf("an empty span")
	}
	at := stamp(s.At)
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "INSERT INTO spans (assessor, query, item, fact, text, at) VALUES (?, ?, ?, ?, ?, ?)",
			s.Assessor, s.Query, s.Item, s.Fact, s.Text, at)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		return logAction(ctx, tx, at, "span", s.Assessor, s.Key, nil, s.Fact+"\t"+s.Text)
	})
	return id, err
}

// DeleteSpan removes one of the assessor's spans; the log keeps it.
func (db *DB) DeleteSpan(ctx context.Context, assessor string, id int64, at time.Time) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var k Key
		var fact, text string
		err := tx.QueryRowContext(ctx, "SELECT query, item, fact, text FROM spans WHERE id = ? AND assessor = ?", id, assessor).
			Scan(&k.Query, &k.Item, &fact, &text)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("no span %d of assessor %q", id, assessor)
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM spans WHERE id = ?", id); err != nil {
			return err
		}
		return logAction(ctx, tx, stamp(at), "unspan", assessor, k, nil, fact+"\t"+text)
	})
}

// Work returns the assessor's grades and skips.
func (db *DB) Work(ctx context.Context, assessor string) (*Work, error) {
	w := &Work{Grades: map[Key]Grade{}, Skipped: map[Key]bool{}}
	gs, err := db.grades(ctx, "WHERE assessor = ?", assessor)
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		w.Grades[g.Key] = g
	}
	skips, err := queryAll(ctx, db, func(rows *sql.Rows) (k Key, err error) {
		return k, rows.Scan(&k.Query, &k.Item)
	}, "SELECT query, item FROM skips WHERE assessor = ?", assessor)
	if err != nil {
		return nil, err
	}
	for _, k := range skips {
		w.Skipped[k] = true
	}
	return w, nil
}

// queryAll runs query with args and reads every row it returns with scan;
// an error of the database is explained (DB.explain), scan's others are
// returned as they are.
func queryAll[T any](ctx context.Context, db *DB, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, db.explain(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		x, err := scan(rows)
		if err != nil {
			return nil, db.explain(err)
		}
		out = append(out, x)
	}
	return out, db.explain(rows.Err())
}

// Grades returns every grade of every assessor, by query, item, assessor.
func (db *DB) Grades(ctx context.Context) ([]Grade, error) { return db.grades(ctx, "") }

func (db *DB) grades(ctx context.Context, where string, args ...any) ([]Grade, error) {
	out, err := queryAll(ctx, db, func(rows *sql.Rows) (g Grade, err error) {
		var at string
		if err := rows.Scan(&g.Assessor, &g.Query, &g.Item, &g.Grade, &g.Note, &at); err != nil {
			return g, err
		}
		if !db.scale.Contains(g.Grade) {
			return g, fmt.Errorf("%s is damaged: %s graded %q/%q %d, outside its scale %s", db.path, g.Assessor, g.Query, g.Item, g.Grade, db.scale)
		}
		g.At = unstamp(at)
		return g, nil
	}, "SELECT assessor, query, item, grade, note, at FROM grades "+where, args...)
	slices.SortFunc(out, func(a, b Grade) int {
		return cmp.Or(strings.Compare(a.Query, b.Query), strings.Compare(a.Item, b.Item), strings.Compare(a.Assessor, b.Assessor))
	})
	return out, err
}

// Spans returns the assessor's spans of one pair, oldest first.
func (db *DB) Spans(ctx context.Context, assessor string, k Key) ([]Span, error) {
	return db.spans(ctx, "WHERE assessor = ? AND query = ? AND item = ?", assessor, k.Query, k.Item)
}

// AllSpans returns every span, oldest first.
func (db *DB) AllSpans(ctx context.Context) ([]Span, error) { return db.spans(ctx, "") }

func (db *DB) spans(ctx context.Context, where string, args ...any) ([]Span, error) {
	return queryAll(ctx, db, func(rows *sql.Rows) (s Span, err error) {
		var at string
		err = rows.Scan(&s.ID, &s.Assessor, &s.Query, &s.Item, &s.Fact, &s.Text, &at)
		s.At = unstamp(at)
		return s, err
	}, "SELECT id, assessor, query, item, fact, text, at FROM spans "+where+" ORDER BY id", args...)
}

// Assessors lists everyone who graded, skipped or marked anything, sorted.
func (db *DB) Assessors(ctx context.Context) ([]string, error) {
	return queryAll(ctx, db, func(rows *sql.Rows) (a string, err error) {
		return a, rows.Scan(&a)
	}, "SELECT assessor FROM grades UNION SELECT assessor FROM skips UNION SELECT assessor FROM spans ORDER BY 1")
}
