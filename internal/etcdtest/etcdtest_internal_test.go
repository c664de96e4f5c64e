package etcdtest

import (
	"errors"
	"net"
	"testing"
)

// TestStartOnATakenPort: a port freePorts found free but another process
// took before etcd bound it has the cluster started again on other ports,
// not failed.
func TestStartOnATakenPort(t *testing.T) {
	if _, err := Binary(); errors.Is(err, ErrNoEtcd) {
		t.Skip(err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	found := freePorts
	handedTaken := false
	freePorts = func() (int, int, error) {
		if handedTaken {
			return found()
		}
		handedTaken = true
		_, peer, err := found()
		return taken.Addr().(*net.TCPAddr).Port, peer, err
	}
	defer func() { freePorts = found }()
	c, err := Start(t.TempDir(), 1)
	if err != nil {
		t.Fatalf("Start with its first client port taken: %v", err)
	}
	defer c.Stop()
	if !handedTaken || c.Endpoints[0] == "http://"+taken.Addr().String() {
		t.Fatalf("the cluster serves at %s, the taken port %s", c.Endpoints[0], taken.Addr())
	}
}
