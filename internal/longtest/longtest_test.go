package longtest

import "testing"

func TestPick(t *testing.T) {
	if got, want := Pick(1, 2), map[bool]int{false: 1, true: 2}[Enabled]; got != want {
		t.Errorf("Pick(1, 2) = %d with Enabled = %v", got, Enabled)
	}
}
