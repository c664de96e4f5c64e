package gate_test

import (
	"encoding/json"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestWirePathIsWhatJSONCarries: WirePath gives a path as encoding/json
// carries it, so a path the coordinator sees in process names the lease a
// client's request for it took.
func TestWirePathIsWhatJSONCarries(t *testing.T) {
	for _, p := range []string{"plain.txt", "d\u00e9j\u00e0.go", "bad\xff.txt", "\xfe\xff", "cut\xe2\x82", "mix\xffé\xc3"} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if got := gate.WirePath(p); got != want {
			t.Errorf("WirePath(%q) = %q, want %q", p, got, want)
		}
	}
}
