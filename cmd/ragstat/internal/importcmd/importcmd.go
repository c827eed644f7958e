// Package importcmd is the body of ragstat import: it maps trace files
// with package traceimport into ragstat traces and a manifest, written in
// place only once all went well.
package importcmd

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/files"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

// A Request is an import from files to files, as `ragstat import` gives
// it: the mapping in words, the input format and files, the corpus, and
// where the traces and the manifest go.
type Request struct {
	settings.Traces
	Format   string   // otlp, langsmith or langfuse (traceimport.ParseFormat)
	Files    []string // the files to import; "-" reads stdin
	Corpus   string   // the corpus (JSONL): the text of items whose spans carry none; "" for none
	Out      string   // the traces' file (JSON Lines); "-" writes to stdout
	Manifest string   // the manifest's file (JSON); "" for none
	Force    bool     // replace Out and Manifest when they exist
}

// Run reads the corpus, maps the files (traceimport.Import) into Out, one
// trace a line of JSON, and writes the manifest into Manifest. Both are
// claimed before anything is read and renamed into place once all went
// well: never over an input, nor over an existing file unless Force;
// messages name them as the command's flags (--out, --manifest). The
// manifest's summary goes to summary once the files are read, also when
// the import failed on the way.
func (r Request) Run(stdin io.Reader, stdout, summary io.Writer) error {
	format, err := traceimport.ParseFormat(r.Format)
	if err != nil {
		return err
	}
	ins := append([]outfile.Input{{Flag: "--corpus", Path: r.Corpus}}, outfile.Inputs("input", r.Files...)...)
	out, err := outfile.Start(outfile.Options{Force: r.Force, Stdout: stdout}, ins,
		outfile.Input{Flag: "--out", Path: r.Out}, outfile.Input{Flag: "--manifest", Path: r.Manifest})
	if err != nil {
		return err
	}
	defer out.Abort()
	if r.Strict {
		cfg := input.ConfigOf(stdin)
		cfg.Strict = true // a torn last line too is an error
		stdin = input.WithConfig(stdin, cfg)
	}
	fs := files.Batch{Stdin: stdin}
	m, err := r.Mapping(files.ReadIn(&fs, r.Corpus, corpus.Read))
	if fs.Err != nil || err != nil {
		return cmp.Or(fs.Err, err)
	}
	in, err := files.OpenAll(r.Files, stdin)
	if err != nil {
		return err
	}
	defer files.CloseAll(in)
	var man *traceimport.Manifest
	err = out.Write(r.Out, func(w io.Writer) (err error) {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		man, err = traceimport.Import(format, in, m, func(t *trace.Trace) error { return enc.Encode(t) })
		return err
	})
	var werr *outfile.WriteError
	if man != nil && !errors.As(err, &werr) { // what was mapped, also where mapping failed; nothing was imported where the output failed
		fmt.Fprint(summary, man.Summary())
	}
	if err != nil {
		return err
	}
	if r.Manifest != "" {
		err := out.Write(r.Manifest, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(man)
		})
		if err != nil {
			return err
		}
	}
	return out.Commit()
}
