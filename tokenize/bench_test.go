package tokenize

import (
	"path/filepath"
	"testing"
)

// BenchmarkCount measures o200k_base counting over the ~1 KB passages that
// testdata/oracle/bench.mjs feeds to OpenAI's tiktoken, reporting tokens/s
// and MB/s so the two can be compared.
func BenchmarkCount(b *testing.B) {
	passages := readPassages(b, filepath.Join("testdata", "golden", "passages.jsonl"))
	tok, err := New("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, p := range passages {
		size += len(p)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	tokens := 0
	for range b.N {
		for _, p := range passages {
			tokens += tok.Count(p)
		}
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkHFCount measures each tokenizer.json fixture over the passages.
func BenchmarkHFCount(b *testing.B) {
	passages := readPassages(b, filepath.Join("testdata", "golden", "passages.jsonl"))
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "hf", "*.json"))
	for _, path := range fixtures {
		tok, err := New(HFPrefix + path)
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
