package neterr_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/leasegate/leasegate/internal/neterr"
)

// TestRefused: a real dial to a loopback port nothing listens on is
// refused, as the platform reports it; other errors are not.
func TestRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = net.Dial("tcp", addr)
	if err == nil || !neterr.Refused(err) {
		t.Errorf("Refused(dial of closed %s: %v) = false, want true", addr, err)
	}
	for _, other := range []error{context.DeadlineExceeded, errors.New("connection refused"), &net.DNSError{Err: "no such host", IsNotFound: true}} {
		if neterr.Refused(other) {
			t.Errorf("Refused(%v) = true, want false", other)
		}
	}
}
