package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestScalars checks strings and floats against encoding/json.
func TestScalars(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	strs := []string{"", "a b", `"quoted"`, "<&>", "\x00\x1f\x7f", "\xff\xfe", "caf\u00e9", "\u2028\u2029", "\\", "\t\n\r\b\f"}
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		strs = append(strs, string(b))
	}
	for _, s := range strs {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("string %q: got %s, want %s", s, got, want)
		}
	}
	floats := []float64{0, math.Copysign(0, -1), 1, 0.1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1.5e300, 5e-324, -2.5e-9, 1.0 / 3}
	for range 2000 {
		floats = append(floats, math.Float64frombits(rng.Uint64()))
	}
	for _, v := range floats {
		want, err := json.Marshal(v)
		if err != nil {
			if Finite([]float64{v}) == nil {
				t.Errorf("finite accepts %v", v)
			}
			continue
		}
		if got := AppendFloat(nil, v); !bytes.Equal(got, want) {
			t.Errorf("float %v: got %s, want %s", v, got, want)
		}
	}
}
