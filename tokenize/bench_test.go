package tokenize

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/synth"
)

// encoder is o200k_base's count without the memory of texts counted, so
// that the benchmarks repeating their passages measure the encoder.
func encoder(b *testing.B) func(string) int {
	tok, err := New("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	return tok.(*tiktokenEncoding).count
}

// BenchmarkCount measures o200k_base counting over the ~1 KB passages that
// testdata/oracle/bench.mjs feeds to OpenAI's tiktoken, reporting tokens/s
// and MB/s so the two can be compared.
func BenchmarkCount(b *testing.B) {
	passages := readPassages(b, filepath.Join("testdata", "golden", "passages.jsonl"))
	count := encoder(b)
	size := 0
	for _, p := range passages {
		size += len(p)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	tokens := 0
	for range b.N {
		for _, p := range passages {
			tokens += count(p)
		}
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkHFCount measures each tokenizer.json fixture over the passages.
func BenchmarkHFCount(b *testing.B) {
	passages := readPassages(b, filepath.Join("testdata", "golden", "passages.jsonl"))
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "hf", "*.json"))
	for _, path := range fixtures {
		tok, err := New(hfPrefix + path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(path), func(b *testing.B) {
			size := 0
			for _, p := range passages {
				size += len(p)
			}
			b.SetBytes(int64(size))
			for range b.N {
				for _, p := range passages {
					tok.Count(p)
				}
			}
		})
	}
}

// BenchmarkCountSynth measures o200k_base counting over the generated
// English passages of bench/gentraces (ASCII words of a small vocabulary),
// the text `ragstat stages` counts in bench/stages.sh: "encode" encodes
// every passage, "recurring" counts them through Count, which remembers
// them after the first round, as it does a passage that recurs in a run.
func BenchmarkCountSynth(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	passages := make([]string, 256)
	size := 0
	for i := range passages {
		passages[i] = synth.Passage(r, 1000)
		size += len(passages[i])
	}
	tok, err := New("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		count func(string) int
	}{{"encode", encoder(b)}, {"recurring", tok.Count}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, p := range passages {
					c.count(p)
				}
			}
		})
	}
}

// BenchmarkCountRun measures o200k_base counting a 10 MB run of one
// character, one piece of the split pattern (a run of spaces, of letters,
// of newlines): byte-pair encoding such a piece must not be quadratic.
func BenchmarkCountRun(b *testing.B) {
	count := encoder(b)
	for _, c := range []struct{ name, unit string }{{"spaces", " "}, {"letters", "a"}, {"newlines", "\n"}, {"digits-letters", "0a"}} {
		text := strings.Repeat(c.unit, 10<<20/len(c.unit))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				count(text)
			}
		})
	}
}
