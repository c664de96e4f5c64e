package bolt

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/jsonenc"
)

// appendEventJSON appends e as encoding/json's Encoder writes it (HTML
// escaping on), newline included. Events of the hot path (grants, renewals,
// releases: plain strings, no Data) are written without reflection, byte
// for byte as encoding/json would (codec_test.go holds the two side by
// side); any other event goes to encoding/json.
func appendEventJSON(b []byte, e *gate.Event) ([]byte, error) {
	start := len(b)
	b, err := appendEvent(b, e)
	if errors.Is(err, jsonenc.ErrSlowPath) {
		var v []byte
		v, err = json.Marshal(e)
		b = append(b[:start], v...)
	}
	if err != nil {
		return b[:start], err
	}
	return append(b, '\n'), nil
}

func appendEvent(b []byte, e *gate.Event) ([]byte, error) {
	if len(e.Data) > 0 {
		return b, jsonenc.ErrSlowPath
	}
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"type":`...)
	b, err := jsonenc.String(b, string(e.Type))
	b = append(b, `,"at":`...)
	b, err = jsonenc.Time(b, e.At, err)
	b, err = jsonenc.StringField(b, `,"actor":`, e.Actor, err)
	b, err = jsonenc.StringField(b, `,"lease_id":`, string(e.LeaseID), err)
	if e.Lease != nil && err == nil {
		b = append(b, `,"lease":`...)
		b, err = jsonenc.Lease(b, e.Lease)
	}
	if !e.ExpiresAt.IsZero() {
		b = append(b, `,"expires_at":`...)
		b, err = jsonenc.Time(b, e.ExpiresAt, err)
	}
	b, err = jsonenc.StringField(b, `,"reason":`, e.Reason, err)
	b, err = jsonenc.StringField(b, `,"path":`, e.Path, err)
	if e.By != nil && err == nil {
		b = append(b, `,"by":`...)
		b, err = jsonenc.Operator(b, e.By, err)
	}
	return append(b, '}'), err
}
