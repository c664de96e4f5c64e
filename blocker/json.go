package blocker

import (
	"encoding/json"
	"time"
)

// JSON returns the report as indented JSON.
func (r Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// duration is a time.Duration as a Go duration string in JSON.
type duration time.Duration

func (d duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = duration(v)
	return err
}

// Aliases without methods, so the overrides below can embed them.
type (
	jsonReport     Report
	jsonHolderInfo HolderInfo
)

// MarshalJSON writes retry_interval as a duration string.
func (r Report) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		jsonReport
		RetryInterval duration `json:"retry_interval"`
	}{jsonReport(r), duration(r.RetryInterval)})
}

// UnmarshalJSON reads retry_interval as a duration string.
func (r *Report) UnmarshalJSON(b []byte) error {
	v := struct {
		*jsonReport
		RetryInterval duration `json:"retry_interval"`
	}{jsonReport: (*jsonReport)(r), RetryInterval: duration(r.RetryInterval)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.RetryInterval = time.Duration(v.RetryInterval)
	return nil
}

// MarshalJSON writes held_for and idle_after as duration strings.
func (h HolderInfo) MarshalJSON() ([]byte, error) {
	v := struct {
		jsonHolderInfo
		HeldFor   duration  `json:"held_for"`
		IdleAfter *duration `json:"idle_after,omitempty"`
	}{jsonHolderInfo: jsonHolderInfo(h), HeldFor: duration(h.HeldFor)}
	if h.IdleAfter != 0 {
		d := duration(h.IdleAfter)
		v.IdleAfter = &d
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads held_for and idle_after as duration strings.
func (h *HolderInfo) UnmarshalJSON(b []byte) error {
	v := struct {
		*jsonHolderInfo
		HeldFor   duration `json:"held_for"`
		IdleAfter duration `json:"idle_after"`
	}{jsonHolderInfo: (*jsonHolderInfo)(h), HeldFor: duration(h.HeldFor), IdleAfter: duration(h.IdleAfter)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	h.HeldFor, h.IdleAfter = time.Duration(v.HeldFor), time.Duration(v.IdleAfter)
	return nil
}
