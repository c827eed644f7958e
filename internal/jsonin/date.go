package jsonin

import (
	"encoding/json"
	"fmt"
	"time"
)

// Date is a calendar date or a timestamp, written "2026-06-01" or in
// RFC 3339; the zero Date means "not given".
type Date struct{ time.Time }

// UnmarshalJSON accepts "YYYY-MM-DD" or an RFC 3339 timestamp.
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a date must be a string such as \"2026-06-01\", found %s", b)
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			d.Time = t
			return nil
		}
	}
	return fmt.Errorf("date %q is neither YYYY-MM-DD nor RFC 3339", s)
}

// MarshalJSON writes the date back in the shortest of the two forms.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte(`""`), nil
	}
	return json.Marshal(d.String())
}

// String is YYYY-MM-DD for a midnight UTC date, RFC 3339 otherwise.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	if d.Equal(d.Truncate(24*time.Hour)) && d.Location() == time.UTC {
		return d.Format(time.DateOnly)
	}
	return d.Format(time.RFC3339Nano)
}
