package coordinator

import "testing"

func TestUIDMapHost(t *testing.T) {
	tests := []struct {
		name    string
		uidMap  string
		in, out uint32
	}{
		{name: "initial namespace", uidMap: "         0          0 4294967295\n", in: 1001, out: 1001},
		{name: "unshare -Ur by 1001", uidMap: "         0       1001          1\n", in: 0, out: 1001},
		{name: "unmapped stays", uidMap: "0 1001 1\n", in: 65534, out: 65534},
		{name: "a range", uidMap: "0 1001 1\n1 100000 65536\n", in: 1000, out: 100999},
		{name: "no map read", uidMap: "", in: 0, out: 0},
	}
	for _, tt := range tests {
		if got := parseUIDMap(tt.uidMap).host(tt.in); got != tt.out {
			t.Errorf("%s: host(%d) = %d, want %d", tt.name, tt.in, got, tt.out)
		}
	}
}
