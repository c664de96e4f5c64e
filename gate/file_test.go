package gate_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// writeFiles is an auto acquire of paths whose files have the given
// identities (dev 1, inode n for path i with n = inos[i]; 0: no file).
func writeFiles(name string, paths []string, inos ...uint64) gate.Request {
	req := write(name, paths...)
	for i, ino := range inos {
		if ino != 0 {
			req.Scope.Files = append(req.Scope.Files, gate.File{Path: paths[i], Dev: 1, Ino: ino})
		}
	}
	return req
}

// TestEveryNameOfAFile: a lease taken on a file covers it under every name
// the request says it has, and keeps covering it after a rename.
func TestEveryNameOfAFile(t *testing.T) {
	w := newWorld(t)
	a := w.grant(writeFiles("alice", []string{"f.txt"}, 7), t0)
	if want := []gate.File{{Path: "f.txt", Dev: 1, Ino: 7}}; !reflect.DeepEqual(a.Scope.Files, want) {
		t.Fatalf("granted lease's files = %v, want %v", a.Scope.Files, want)
	}
	tests := []struct {
		name string
		req  gate.Request
	}{
		{"hard link", writeFiles("bob", []string{"g.txt"}, 7)},
		{"renamed file", writeFiles("bob", []string{"moved/f.txt"}, 7)},
		{"one of several paths", writeFiles("bob", []string{"a.txt", "g.txt"}, 3, 7)},
		{"check-out", func() gate.Request {
			r := checkout("bob", fileScope("g.txt"))
			r.Scope.Files = []gate.File{{Path: "g.txt", Dev: 1, Ino: 7}}
			return r
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := gate.Decide(tt.req, w.table, t0.Add(time.Minute))
			if d.Granted || d.Reason != gate.ReasonHeldByOther || d.Holder.ID != a.ID {
				t.Fatalf("Decide(%v) = %s holder %v, want %s by %s", tt.req.Scope, d.Reason, d.Holder, gate.ReasonHeldByOther, a.ID)
			}
			if !strings.Contains(d.Message, "the same file as f.txt") {
				t.Fatalf("message %q does not name the holder's path", d.Message)
			}
		})
	}
	for _, req := range []gate.Request{
		writeFiles("bob", []string{"g.txt"}, 8), // another inode
		func() gate.Request { r := writeFiles("bob", []string{"g.txt"}, 7); r.Scope.Files[0].Dev = 2; return r }(), // another device
		writeFiles("alice", []string{"g.txt"}, 7), // the holder's own second name
		write("bob", "g.txt"),                     // no identity: by path only
	} {
		if d := gate.Decide(req, w.table, t0.Add(time.Minute)); !d.Granted {
			t.Errorf("Decide(%s %v) = %s (%s), want granted", req.Owner.Name, req.Scope, d.Reason, d.Message)
		}
	}
	w.grant(on(gate.OpRelease, "alice", a), t0.Add(time.Minute))
	if d := gate.Decide(writeFiles("bob", []string{"g.txt"}, 7), w.table, t0.Add(time.Minute)); !d.Granted {
		t.Fatalf("after the release: Decide = %s (%s), want granted", d.Reason, d.Message)
	}
}

// TestFileIdentityReplays: the identity index is part of the projection:
// replaying the ledger gives the same answers, and a grant that would give
// one file two holders is refused as corrupt.
func TestFileIdentityReplays(t *testing.T) {
	w := newWorld(t)
	w.grant(writeFiles("alice", []string{"f.txt", "n.txt"}, 7, 0), t0)
	replayed := gate.NewTable()
	for _, e := range w.log {
		if err := replayed.Apply(e); err != nil {
			t.Fatalf("replay Apply(%s) = %v", e.Type, err)
		}
	}
	req := writeFiles("bob", []string{"g.txt"}, 7)
	if a, b := gate.Decide(req, w.table, t0), gate.Decide(req, replayed, t0); !reflect.DeepEqual(a, b) || a.Granted {
		t.Fatalf("replayed table decides %+v, live table %+v; want the same denial", b, a)
	}
	l := gate.Lease{ID: "01JLEASE000000000000000099", Owner: owner("bob"), Kind: gate.KindAuto, Scope: req.Scope,
		State: gate.StateActive, FencingToken: 99, AcquiredAt: t0, LastHeartbeatAt: t0}
	if err := replayed.Apply(gate.Event{Seq: 99, Type: gate.EventGranted, At: t0, Lease: &l}); err == nil {
		t.Fatalf("Apply(grant of alice's file to bob) = nil, want %v", gate.ErrAlreadyLeased)
	}
}

// TestFileIdentityIsChecked: an identity must name a path of the scope,
// once, with an inode number.
func TestFileIdentityIsChecked(t *testing.T) {
	w := newWorld(t)
	for _, fs := range [][]gate.File{
		{{Path: "other.txt", Dev: 1, Ino: 7}},
		{{Path: "f.txt", Dev: 1}},
		{{Path: "f.txt", Dev: 1, Ino: 7}, {Path: "f.txt", Dev: 1, Ino: 8}},
	} {
		req := write("alice", "f.txt")
		req.Scope.Files = fs
		if d := gate.Decide(req, w.table, t0); d.Granted || d.Reason != gate.ReasonInputInvalid {
			t.Errorf("Decide(files %v) = %s, want %s", fs, d.Reason, gate.ReasonInputInvalid)
		}
	}
}
