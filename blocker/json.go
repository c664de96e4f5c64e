package blocker

import (
	"encoding/json"
	"time"
)

// JSON returns the report as indented JSON.
func (r Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// legacyDuration is a duration as reports before the _ns fields wrote
// it: a Go duration string such as "3m0s". Reports in older ledgers and
// report files are still read.
type legacyDuration struct {
	d   time.Duration
	set bool
}

func (d *legacyDuration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = legacyDuration{v, err == nil}
	return err
}

// Aliases without methods, so the overrides below can embed them.
type (
	jsonReport     Report
	jsonHolderInfo HolderInfo
)

// UnmarshalJSON reads a report, the retry interval also from the
// retry_interval string of older reports.
func (r *Report) UnmarshalJSON(b []byte) error {
	v := struct {
		*jsonReport
		Legacy legacyDuration `json:"retry_interval"`
	}{jsonReport: (*jsonReport)(r)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.Legacy.set {
		r.RetryInterval = v.Legacy.d
	}
	return nil
}

// UnmarshalJSON reads a holder, held_for and idle_after also from the
// strings of older reports.
func (h *HolderInfo) UnmarshalJSON(b []byte) error {
	v := struct {
		*jsonHolderInfo
		HeldFor   legacyDuration `json:"held_for"`
		IdleAfter legacyDuration `json:"idle_after"`
	}{jsonHolderInfo: (*jsonHolderInfo)(h)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.HeldFor.set {
		h.HeldFor = v.HeldFor.d
	}
	if v.IdleAfter.set {
		h.IdleAfter = v.IdleAfter.d
	}
	return nil
}
