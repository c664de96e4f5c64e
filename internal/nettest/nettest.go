// Package nettest finds the addresses of this machine that tests need:
// it owns no behaviour of leasegate and must not import any of its
// packages.
package nettest

import (
	"net"
	"testing"
)

// NonLoopbackIP returns an address of an up, non-loopback interface of
// this machine (IPv4 first, then global IPv6), one a server can listen on
// and a client on the same machine can reach. It skips the test when the
// machine has none, saying so.
func NonLoopbackIP(tb testing.TB) net.IP {
	tb.Helper()
	ifs, err := net.Interfaces()
	if err != nil {
		tb.Fatalf("net.Interfaces: %v", err)
	}
	var v6 net.IP
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			n, ok := a.(*net.IPNet)
			if !ok || !n.IP.IsGlobalUnicast() {
				continue
			}
			if n.IP.To4() != nil {
				return n.IP
			}
			if v6 == nil {
				v6 = n.IP
			}
		}
	}
	if v6 == nil {
		tb.Skip("this machine has no up, non-loopback interface with a global address to serve on")
	}
	return v6
}
