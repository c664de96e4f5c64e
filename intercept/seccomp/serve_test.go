//go:build linux && (amd64 || arm64)

package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestListenerEvents: only POLLHUP (no filtered task left) or POLLNVAL
// (listener closed) ends serving; POLLERR alone, which the kernel answers
// when a signal interrupts the poll's wait for the listener's lock, does
// not.
func TestListenerEvents(t *testing.T) {
	tests := []struct {
		name       string
		ev         int16
		ready, hup bool
	}{
		{name: "notification", ev: unix.POLLIN, ready: true},
		{name: "no task left", ev: unix.POLLHUP, hup: true},
		{name: "closed", ev: unix.POLLNVAL, hup: true},
		{name: "interrupted lock", ev: unix.POLLERR},
		{name: "notification and no task left", ev: unix.POLLIN | unix.POLLHUP, ready: true, hup: true},
	}
	for _, tt := range tests {
		ready, hup := listenerEvents(tt.ev)
		if ready != tt.ready || hup != tt.hup {
			t.Errorf("%s: listenerEvents(%#x) = %v, %v, want %v, %v", tt.name, tt.ev, ready, hup, tt.ready, tt.hup)
		}
	}
}
