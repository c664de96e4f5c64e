package sidecar

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/internal/servicetest"
	"github.com/leasegate/leasegate/workspace"
)

// write is a mutation of the workspace-relative path rel by the worker.
func write(s *Sidecar, op intercept.Op, rel string) intercept.Mutation {
	return intercept.Mutation{PID: 7, TID: 7, Op: op, Syscall: "test", Paths: []string{filepath.Join(s.cfg.Workspace.Root, rel)}}
}

// TestDecideOutcomes: what the sidecar answers the kernel for each way the
// coordinator's protocol can end, what it tells the person running the
// worker, and that the worker is halted exactly while a blocker is open.
func TestDecideOutcomes(t *testing.T) {
	denied := servicetest.Answer{Result: leasegate.Result{Outcome: leasegate.Denied, Reason: gate.ReasonHeldByOther, Message: "refused by the operator"}}
	aborted := servicetest.Answer{Result: leasegate.Result{Outcome: leasegate.Aborted, Message: "aborted by the operator"}}
	tests := []struct {
		name                   string
		mutates, waits, blocks []servicetest.Answer
		want                   error
		notices                []string // each must appear, in order
		held                   bool     // the path is held afterwards
		aborted                bool
	}{
		{name: "granted", mutates: []servicetest.Answer{servicetest.Granted("alice", "src/b.go")}, held: true},
		{name: "contended then granted at the retry", mutates: []servicetest.Answer{contended("src/b.go")}, waits: []servicetest.Answer{servicetest.Granted("alice", "src/b.go")},
			notices: []string{"contention: src/b.go is held by bob", "the write waits for one retry"}, held: true},
		{name: "blocked then granted by the operator", mutates: []servicetest.Answer{contended("src/b.go")}, waits: []servicetest.Answer{blocked("src/b.go")},
			blocks:  []servicetest.Answer{{Result: leasegate.Result{Outcome: leasegate.Granted, Message: "retried by the operator", Leases: []gate.Lease{servicetest.LeaseOn("alice", "src/b.go")}}}},
			notices: []string{"contention:", "BLOCKED: src/b.go is still held by bob after the retry; worker alice is halted", "resolve: leasegate resolve B1 --retry   (or --deny, or --abort)", "proceeds: retried by the operator"}, held: true},
		{name: "blocked then denied", mutates: []servicetest.Answer{contended("src/b.go")}, waits: []servicetest.Answer{blocked("src/b.go")}, blocks: []servicetest.Answer{denied},
			want: syscall.EBUSY, notices: []string{"BLOCKED:", "failed with EBUSY: refused by the operator"}},
		{name: "blocked then aborted", mutates: []servicetest.Answer{contended("src/b.go")}, waits: []servicetest.Answer{blocked("src/b.go")}, blocks: []servicetest.Answer{aborted},
			want: syscall.EBUSY, notices: []string{"BLOCKED:", "failed with EBUSY: aborted by the operator"}, aborted: true},
		{name: "denied at once", mutates: []servicetest.Answer{denied}, want: syscall.EBUSY, notices: []string{"write of src/b.go failed with EBUSY: refused by the operator"}},
		{name: "refused with an error", mutates: []servicetest.Answer{{Err: &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "bad path"}}},
			want: syscall.EACCES, notices: []string{"write of src/b.go refused:", "bad path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := servicetest.New()
			svc.Mutates, svc.Waits, svc.Blocks = tt.mutates, tt.waits, tt.blocks
			s, notices := fakeSidecar(t, svc)
			haltedWhileBlocked := true
			svc.InWaitBlocker = func() { haltedWhileBlocked = haltedWhileBlocked && s.halted() }
			m := write(s, intercept.OpOpenWrite, "src/b.go")
			if err := s.Decide(context.Background(), m); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("Decide(write src/b.go) = %v, want %v; notices:\n%s", err, tt.want, notices)
			}
			checkNotices(t, notices.String(), tt.notices)
			if got := s.held.covers([]string{"src/b.go"}); got != tt.held {
				t.Errorf("held covers src/b.go = %t, want %t", got, tt.held)
			}
			if s.halted() {
				t.Error("worker still halted after the write was decided")
			}
			if !haltedWhileBlocked {
				t.Error("worker not halted while its write waited on an open blocker")
			}
			if s.isAborted() != tt.aborted {
				t.Errorf("aborted = %t, want %t", s.isAborted(), tt.aborted)
			}
			if n := svc.Count("Mutate"); n != 1 {
				t.Errorf("Mutate called %d times, want once (one retry is the coordinator's, not a loop here)", n)
			}
			if tt.aborted {
				if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, "src/c.go")); !errors.Is(err, syscall.EBUSY) {
					t.Errorf("Decide(write src/c.go) after the abort = %v, want EBUSY", err)
				}
				if n := svc.Count("Mutate"); n != 1 {
					t.Errorf("Mutate called %d times, want no request after the abort", n)
				}
			}
		})
	}
}

// TestContentionNoticeNamesWhatIsHeld: a rename of a directory that
// waits for another owner's file beneath it names the rename and that
// file, in the contention's line and the blocker's, not both names (or
// the subtree) as if each were held.
func TestContentionNoticeNamesWhatIsHeld(t *testing.T) {
	svc := servicetest.New()
	con := servicetest.Contended("alice", "pkg/a/**")
	con.Result.Contention.Paths = []string{"pkg/a/**", "pkg/b/**"}
	con.Result.Contention.Holder = servicetest.LeaseOn("bob", "pkg/a/x.go")
	blocked := servicetest.Blocked("alice", "pkg/a/**")
	blocked.Result.Contention = con.Result.Contention
	svc.Mutates, svc.Waits = []servicetest.Answer{con}, []servicetest.Answer{blocked}
	svc.Blocks = []servicetest.Answer{servicetest.Granted("alice", "pkg/a/**")}
	s, notices := fakeSidecar(t, svc)
	m := intercept.Mutation{PID: 7, TID: 7, Op: intercept.OpRename, Syscall: "test",
		Paths: []string{filepath.Join(s.cfg.Workspace.Root, "pkg/a"), filepath.Join(s.cfg.Workspace.Root, "pkg/b")}}
	if err := s.Decide(context.Background(), m); err != nil {
		t.Fatalf("Decide(rename pkg/a pkg/b) = %v, want granted", err)
	}
	checkNotices(t, notices.String(), []string{"contention: rename of pkg/a/** to pkg/b/**: pkg/a/x.go is held by bob",
		"BLOCKED: rename of pkg/a/** to pkg/b/**: pkg/a/x.go is still held by bob after the retry"})
}

// TestRmdirOfNonEmptyDirectory: the removal of a directory that has
// entries fails with ENOTEMPTY, as the kernel would fail it, without asking
// the coordinator; an empty directory's removal is asked, and so is an
// rmdir of a symlink to a directory with entries (the kernel fails that
// with ENOTDIR, and does not follow the link).
func TestRmdirOfNonEmptyDirectory(t *testing.T) {
	svc := servicetest.New()
	svc.Mutates = []servicetest.Answer{servicetest.Granted("alice", "e/**"), servicetest.Granted("alice", "l/**")}
	s, _ := fakeSidecar(t, svc)
	root := s.cfg.Workspace.Root
	for _, dir := range []string{"d", "e"} {
		if err := os.Mkdir(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "d", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(root, "l")); err != nil {
		t.Fatal(err)
	}
	if err := s.Decide(context.Background(), write(s, intercept.OpRmdir, "d")); !errors.Is(err, syscall.ENOTEMPTY) {
		t.Errorf("Decide(rmdir d) = %v, want ENOTEMPTY", err)
	}
	if n := svc.Count("Mutate"); n != 0 {
		t.Errorf("Mutate called %d times for the non-empty d, want none", n)
	}
	for _, dir := range []string{"e", "l"} {
		if err := s.Decide(context.Background(), write(s, intercept.OpRmdir, dir)); err != nil {
			t.Errorf("Decide(rmdir %s) = %v, want granted", dir, err)
		}
	}
	if n := svc.Count("Mutate"); n != 2 {
		t.Errorf("Mutate called %d times for e and l, want twice", n)
	}
}

// TestBlockedNoticeNamesTheReport: the BLOCKED notice names the report's
// Markdown file when the coordinator wrote it, and the command that prints
// the report when it could not (a full disk), never a file that is not there.
func TestBlockedNoticeNamesTheReport(t *testing.T) {
	for _, written := range []bool{true, false} {
		svc := servicetest.New()
		svc.Mutates, svc.Waits = []servicetest.Answer{contended("src/b.go")}, []servicetest.Answer{blocked("src/b.go")}
		svc.Blocks = []servicetest.Answer{servicetest.Granted("alice", "src/b.go")}
		s, notices := fakeSidecar(t, svc)
		md := filepath.Join(s.cfg.Workspace.StateDir, "blockers", "B1.md")
		if written {
			if err := os.MkdirAll(filepath.Dir(md), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(md, []byte("# BLOCKED"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, "src/b.go")); err != nil {
			t.Fatalf("Decide(write src/b.go) = %v, want granted", err)
		}
		want := "report: " + md + "\n"
		if !written {
			want = "report: `leasegate blockers B1` (its file could not be written yet"
		}
		checkNotices(t, notices.String(), []string{"BLOCKED:", want})
	}
}

// TestLinkOutOfTheWorkspaceRefused: a hard link whose new name lies
// outside the workspace and whose file is gated is refused with EXDEV
// (tools that link where they can copy instead), without asking the
// coordinator and never from memory; links within the workspace, into it,
// and of git's files go on as before.
func TestLinkOutOfTheWorkspaceRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x")
	tests := []struct {
		name        string
		paths       func(root string) []string // new name, then the file
		want        error
		mutateCalls int
	}{
		{name: "gated file to a name outside", paths: func(root string) []string { return []string{out, filepath.Join(root, "src/a.go")} }, want: syscall.EXDEV},
		{name: "within the workspace", paths: func(root string) []string {
			return []string{filepath.Join(root, "src/b.go"), filepath.Join(root, "src/a.go")}
		}, mutateCalls: 1},
		{name: "outside file into the workspace", paths: func(root string) []string { return []string{filepath.Join(root, "src/b.go"), out} }, mutateCalls: 1},
		{name: "git's object to a name outside", paths: func(root string) []string { return []string{out, filepath.Join(root, ".git/objects/ab/cd")} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := servicetest.New()
			svc.Mutates = []servicetest.Answer{servicetest.Granted("alice", "src/b.go")}
			s, notices := fakeSidecar(t, svc)
			s.held.add("alice", []gate.Lease{servicetest.LeaseOn("alice", "src/a.go")})
			m := intercept.Mutation{PID: 7, TID: 7, Op: intercept.OpLink, Syscall: "test", Paths: tt.paths(s.cfg.Workspace.Root)}
			if answered, _ := s.DecideNow(m); answered {
				t.Errorf("DecideNow(link %q) answered from memory, want it left to Decide", m.Paths)
			}
			if err := s.Decide(context.Background(), m); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("Decide(link %q) = %v, want %v", m.Paths, err, tt.want)
			}
			if n := svc.Count("Mutate"); n != tt.mutateCalls {
				t.Errorf("Mutate called %d times, want %d", n, tt.mutateCalls)
			}
			if refused := strings.Contains(notices.String(), "refused link"); refused != (tt.want != nil) {
				t.Errorf("notices %q, want a refusal: %t", notices, tt.want != nil)
			}
		})
	}
}

// TestWriteThroughOutsideLinkGated: a write through a hard link outside
// the workspace, made by a process no sidecar gates, to a file a lease
// records is gated as a write of the leased path: DecideNow leaves it to
// Decide, which asks the coordinator for that path with its identity. An
// outside file with one name, or a link to a file no lease records, passes
// in memory as before.
func TestWriteThroughOutsideLinkGated(t *testing.T) {
	svc := servicetest.New(contended("src/a.go"))
	svc.Waits = []servicetest.Answer{servicetest.Granted("alice", "src/a.go")}
	s, _ := fakeSidecar(t, svc)
	root, out := s.cfg.Workspace.Root, t.TempDir()
	for _, f := range []string{filepath.Join(root, "src/a.go"), filepath.Join(root, "src/free.go"), filepath.Join(out, "single")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"held-link": "src/a.go", "free-link": "src/free.go"} {
		if err := os.Link(filepath.Join(root, target), filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	held := servicetest.LeaseOn("bob", "src/a.go")
	held.Scope.Files = s.cfg.Workspace.Files([]string{"src/a.go"})
	if len(held.Scope.Files) != 1 {
		t.Fatalf("no identity of src/a.go: %v", held.Scope.Files)
	}
	s.leased.apply(gate.Event{Type: gate.EventGranted, Lease: &held})
	for _, name := range []string{"single", "free-link"} {
		m := intercept.Mutation{PID: 7, TID: 7, Op: intercept.OpOpenWrite, Syscall: "test", Paths: []string{filepath.Join(out, name)}}
		if answered, err := s.DecideNow(m); !answered || err != nil {
			t.Errorf("DecideNow(write %s) = %t, %v; want it passed in memory", name, answered, err)
		}
	}
	m := intercept.Mutation{PID: 7, TID: 7, Op: intercept.OpOpenWrite, Syscall: "test", Paths: []string{filepath.Join(out, "held-link")}}
	if answered, _ := s.DecideNow(m); answered {
		t.Fatal("DecideNow(write through the outside link of src/a.go) answered from memory, want it gated")
	}
	if err := s.Decide(context.Background(), m); err != nil {
		t.Fatalf("Decide(write through the outside link) = %v, want granted at the retry", err)
	}
	if len(svc.Asked) != 1 || !slices.Equal(svc.Asked[0].Paths, []string{"src/a.go"}) || len(svc.Asked[0].Files) != 1 {
		t.Fatalf("asked the coordinator %+v, want one write of src/a.go with its identity", svc.Asked)
	}
	s.leased.apply(gate.Event{Type: gate.EventReleased, LeaseID: held.ID})
	if answered, _ := s.DecideNow(m); !answered {
		t.Error("DecideNow(write through the outside link) still gated after the lease ended")
	}
}

// checkNotices fails unless every one of want appears in got, in order.
func checkNotices(t *testing.T, got string, want []string) {
	t.Helper()
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("notices lack %q (in order); got:\n%s", w, got)
			return
		}
		rest = rest[i+len(w):]
	}
}

// TestDecideFailsClosedWhileUnavailable: while the coordinator cannot be
// reached the write waits and is asked again, with a notice; it is never
// allowed, and when the wait ends (the worker's ctx) it fails with EACCES.
func TestDecideFailsClosedWhileUnavailable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := servicetest.New()
		svc.Mutates = []servicetest.Answer{servicetest.Unavailable()}
		s, notices := fakeSidecar(t, svc)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.Decide(ctx, write(s, intercept.OpOpenWrite, "src/b.go")); !errors.Is(err, syscall.EACCES) {
			t.Fatalf("Decide(write) with the coordinator down for good = %v, want EACCES", err)
		}
		if n := svc.Count("Mutate"); n < 10 {
			t.Errorf("Mutate asked %d times in a minute, want it asked again and again (backoff up to 5 s)", n)
		}
		checkNotices(t, notices.String(), []string{"coordinator unavailable at test.sock: connection refused; the write to src/b.go is held and retried"})
		if s.held.covers([]string{"src/b.go"}) {
			t.Error("src/b.go held though nothing was granted")
		}
	})
}

// TestDecideSaysWhenTheCoordinatorIsSlow: a write the coordinator took
// and has not answered (its etcd unreachable, or paused) is said once
// after 2 s on the sidecar's clock, naming the likelier cause for the
// workspace, and stays held: never allowed.
func TestDecideSaysWhenTheCoordinatorIsSlow(t *testing.T) {
	for _, shared := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			svc := servicetest.New(servicetest.Hang)
			s, notices := fakeSidecar(t, svc)
			if shared {
				s.cfg.Workspace.Config.Cluster = &workspace.Cluster{Endpoints: []string{"http://e:2379"}, Workspace: "w"}
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Decide(ctx, write(s, intercept.OpOpenWrite, "src/b.go")) }()
			synctest.Wait()
			s.cfg.Clock.(*clock.Mock).Add(2 * time.Second)
			synctest.Wait()
			cancel()
			if err := <-done; !errors.Is(err, syscall.EACCES) {
				t.Fatalf("Decide(write) never answered = %v, want EACCES once the worker gives up", err)
			}
			why := "a paused or overloaded coordinator"
			if shared {
				why = "its lease table is shared on etcd"
			}
			checkNotices(t, notices.String(), []string{"the coordinator has not answered about the write to src/b.go for 2s; the write is held until it does (" + why})
			if n := strings.Count(notices.String(), "has not answered"); n != 1 {
				t.Errorf("said %d times, want once:\n%s", n, notices)
			}
		})
	}
}

// TestDecideWaitsOutAnOutage: a write held while the coordinator was
// unreachable proceeds once it answers with a grant.
func TestDecideWaitsOutAnOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := servicetest.New()
		svc.Mutates = []servicetest.Answer{servicetest.Unavailable(), servicetest.Unavailable(), servicetest.Unavailable(), servicetest.Granted("alice", "src/b.go")}
		s, _ := fakeSidecar(t, svc)
		if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, "src/b.go")); err != nil {
			t.Fatalf("Decide(write) after an outage = %v, want allowed", err)
		}
		if n := svc.Count("Mutate"); n != 4 {
			t.Errorf("Mutate asked %d times, want 4 (three unavailable, then granted)", n)
		}
	})
}

// TestDecideUnavailableWhileContended: an outage during the wait for the
// retry keeps the write waiting; it is not allowed, nor asked anew.
func TestDecideUnavailableWhileContended(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := servicetest.New()
		svc.Mutates = []servicetest.Answer{contended("src/b.go")}
		svc.Waits = []servicetest.Answer{servicetest.Unavailable(), servicetest.Unavailable(), servicetest.Granted("alice", "src/b.go")}
		s, _ := fakeSidecar(t, svc)
		if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, "src/b.go")); err != nil {
			t.Fatalf("Decide(write) = %v, want allowed at the retry", err)
		}
		if got := [2]int{svc.Count("Mutate"), svc.Count("WaitContention")}; got != [2]int{1, 3} {
			t.Errorf("Mutate, WaitContention called %v times, want [1 3]", got)
		}
	})
}

// TestDecideInterruptedWaitWithdraws: a worker that gives up waiting (its
// syscall's ctx ends) has its contention withdrawn and its write refused.
func TestDecideInterruptedWaitWithdraws(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := servicetest.New()
		svc.Mutates = []servicetest.Answer{contended("src/b.go")}
		svc.Waits = []servicetest.Answer{servicetest.Unavailable()}
		s, _ := fakeSidecar(t, svc)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Decide(ctx, write(s, intercept.OpOpenWrite, "src/b.go")); !errors.Is(err, syscall.EACCES) {
			t.Fatalf("Decide(write) with its wait cut short = %v, want EACCES", err)
		}
		if len(svc.Withdrawn) != 1 || svc.Withdrawn[0] != "C1" {
			t.Errorf("withdrawn %v, want [C1]", svc.Withdrawn)
		}
	})
}

// TestDecideCachesGrants: a path granted once is answered from the cache
// without asking the coordinator again; another path is asked.
func TestDecideCachesGrants(t *testing.T) {
	svc := servicetest.New()
	svc.Mutates = []servicetest.Answer{servicetest.Granted("alice", "src/b.go"), servicetest.Granted("alice", "src/c.go")}
	s, _ := fakeSidecar(t, svc)
	ctx := context.Background()
	for i, rel := range []string{"src/b.go", "src/b.go", "src/c.go", "src/b.go"} {
		if err := s.Decide(ctx, write(s, intercept.OpOpenWrite, rel)); err != nil {
			t.Fatalf("Decide(write %s) #%d = %v", rel, i, err)
		}
	}
	if n := svc.Count("Mutate"); n != 2 {
		t.Errorf("Mutate called %d times for b, b, c, b, want 2", n)
	}
	s.held.forget() // what the event stream does when one of the worker's leases may have ended
	svc.Mutates = []servicetest.Answer{servicetest.Granted("alice", "src/b.go")}
	if err := s.Decide(ctx, write(s, intercept.OpOpenWrite, "src/b.go")); err != nil {
		t.Fatal(err)
	}
	if n := svc.Count("Mutate"); n != 3 {
		t.Errorf("Mutate called %d times after the cache was cleared, want 3", n)
	}
}

// TestDecideCachesOnlyOwnActiveLeases: a grant's leases of another owner,
// or no longer active, are not remembered as the worker's.
func TestDecideCachesOnlyOwnActiveLeases(t *testing.T) {
	ended := servicetest.LeaseOn("alice", "src/b.go")
	ended.State = gate.StateReleased
	svc := servicetest.New()
	svc.Mutates = []servicetest.Answer{{Result: leasegate.Result{Outcome: leasegate.Granted, Leases: []gate.Lease{ended, servicetest.LeaseOn("bob", "src/c.go")}}}}
	s, _ := fakeSidecar(t, svc)
	if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, "src/b.go")); err != nil {
		t.Fatal(err)
	}
	if s.held.covers([]string{"src/b.go"}) || s.held.covers([]string{"src/c.go"}) {
		t.Error("a released lease or another owner's lease was cached as the worker's")
	}
}

// TestDecideAsksUnderOwnCheckout: a write granted under the worker's own
// check-out is not answered from the cache the next time: the coordinator
// must see each such write to know a gate saw it.
func TestDecideAsksUnderOwnCheckout(t *testing.T) {
	co := gate.Lease{ID: "L-docs", Owner: gate.Owner{Name: "alice"}, Kind: gate.KindCheckout, State: gate.StateActive,
		Scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**"}}}
	svc := servicetest.New()
	svc.Mutates = []servicetest.Answer{{Result: leasegate.Result{Outcome: leasegate.Granted, Leases: []gate.Lease{co}}}}
	s, _ := fakeSidecar(t, svc)
	for i, rel := range []string{"docs/a.md", "docs/a.md", "docs/b.md"} {
		if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, rel)); err != nil {
			t.Fatalf("Decide(write %s) #%d = %v", rel, i, err)
		}
	}
	if n := svc.Count("Mutate"); n != 3 {
		t.Errorf("Mutate called %d times for three writes under alice's check-out, want 3", n)
	}
}

// TestDecideTakesNewDirectorySubtree: a directory the worker creates is
// leased with its whole subtree when free (a Try request), so what is then
// made in it is answered without the coordinator.
func TestDecideTakesNewDirectorySubtree(t *testing.T) {
	svc := servicetest.New()
	svc.Mutates = []servicetest.Answer{servicetest.Granted("alice", "gen/**")}
	s, _ := fakeSidecar(t, svc)
	ctx := context.Background()
	if err := s.Decide(ctx, write(s, intercept.OpMkdir, "gen")); err != nil {
		t.Fatalf("Decide(mkdir gen) = %v", err)
	}
	if len(svc.Asked) != 1 || !svc.Asked[0].Try || svc.Asked[0].Paths[0] != "gen/**" {
		t.Fatalf("asked %+v, want one Try of gen/**", svc.Asked)
	}
	if err := s.Decide(ctx, write(s, intercept.OpCreate, "gen/x/y.txt")); err != nil {
		t.Fatalf("Decide(create gen/x/y.txt) = %v", err)
	}
	if n := svc.Count("Mutate"); n != 1 {
		t.Errorf("Mutate called %d times, want once: the subtree covers what is made in it", n)
	}
}

// TestDecideRegistersAgain: a coordinator that no longer knows the owner
// has it registered again, and the write is then gated as usual.
func TestDecideRegistersAgain(t *testing.T) {
	svc := servicetest.New()
	svc.Mutates = []servicetest.Answer{{Err: &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no registered owner alice"}}, servicetest.Granted("alice", "src/b.go")}
	s, notices := fakeSidecar(t, svc)
	if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, "src/b.go")); err != nil {
		t.Fatalf("Decide(write) after a lost registration = %v, want allowed", err)
	}
	if len(svc.Joined) != 1 || svc.Count("Mutate") != 2 {
		t.Errorf("registered %d times, Mutate %d times; want 1 and 2", len(svc.Joined), svc.Count("Mutate"))
	}
	checkNotices(t, notices.String(), []string{"lost the registration of alice", "registered again"})
}

// TestDecideAsksAgainForAWriteTheCoordinatorNoLongerHolds: a halted
// write whose blocker the coordinator holds no more after a restart (it
// was resolved, and the lease its retry granted is gone) is asked for
// again and said so, in words of that cause: the coordinator did not lose
// the owner's registration, and the owner is not registered again.
func TestDecideAsksAgainForAWriteTheCoordinatorNoLongerHolds(t *testing.T) {
	svc := servicetest.New()
	svc.Mutates = []servicetest.Answer{servicetest.Blocked("alice", "src/b.go"), servicetest.Granted("alice", "src/b.go")}
	gone := "blocker B1 was resolved (retry by operator at 2026-11-28T00:00:00Z) while no write waited on it here, and the lease its retry granted alice holds no more"
	svc.Blocks = []servicetest.Answer{{Err: &gate.DeniedError{Reason: gate.ReasonNotFound, Message: gone}}}
	s, notices := fakeSidecar(t, svc)
	if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, "src/b.go")); err != nil {
		t.Fatalf("Decide(write) after its blocker's hold was gone = %v, want allowed", err)
	}
	if len(svc.Joined) != 0 || svc.Count("Mutate") != 2 {
		t.Errorf("registered %d times, Mutate %d times; want 0 and 2", len(svc.Joined), svc.Count("Mutate"))
	}
	checkNotices(t, notices.String(), []string{"open-write of src/b.go is asked for again, gated: the coordinator no longer holds the write halted by blocker B1", gone})
	if strings.Contains(notices.String(), "registration") {
		t.Errorf("notices say a registration was lost:\n%s", notices.String())
	}
}

// TestGateFollowsConfig: an operator's edit of leasegate.json reaches a
// running worker's gate at its next beat: a path newly excluded is no
// longer asked of the coordinator, and the worker is told; a file that
// does not load is said once and leaves the rule as it was.
func TestGateFollowsConfig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := servicetest.New(servicetest.Granted("alice", "tmp/x"))
		s, notices := fakeSidecar(t, svc)
		root := s.cfg.Workspace.Root
		writeConfig := func(cfg string) {
			if err := os.WriteFile(filepath.Join(root, workspace.ConfigFile), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		writeConfig(`{"gate_git_ignored": true, "exclude": ["tmp/**"]}`)
		s.followRule()
		if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, "tmp/x")); err != nil || svc.Count("Mutate") != 0 {
			t.Fatalf("Decide(tmp/x) after exclude tmp/** = %v with %d Mutates, want allowed without asking", err, svc.Count("Mutate"))
		}
		writeConfig(`{"exclude": [}`)
		s.followRule()
		s.followRule()
		if err := s.Decide(context.Background(), write(s, intercept.OpOpenWrite, "tmp/y")); err != nil || svc.Count("Mutate") != 0 {
			t.Fatalf("Decide(tmp/y) with a file that does not load = %v with %d Mutates, want the rule before it", err, svc.Count("Mutate"))
		}
		checkNotices(t, notices.String(), []string{"leasegate.json changed what is gated", "invalid JSON"})
		if n := strings.Count(notices.String(), "invalid JSON"); n != 1 {
			t.Errorf("said the file does not load %d times, want once:\n%s", n, notices)
		}
	})
}

// TestHeldPartNamesEachPathOnce: a write of a pair of files held by a
// lease on just that pair names each file once; a pair of which the lease
// holds one names the write and the held file.
func TestHeldPartNamesEachPathOnce(t *testing.T) {
	pair := []string{"src/app.go", "src/app_test.go"}
	tests := []struct {
		name string
		held []string
		want string
	}{
		{name: "both held", held: []string{"src/app_test.go", "src/app.go"}, want: "src/app.go, src/app_test.go"},
		{name: "one held", held: []string{"src/app.go"}, want: "open-write of src/app.go, src/app_test.go: src/app.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := leasegate.ContentionView{Paths: pair, Holder: servicetest.LeaseOn("carol", "")}
			c.Holder.Scope.Paths = tt.held
			req := leasegate.MutateRequest{Op: string(intercept.OpOpenWrite), Paths: pair}
			if got := heldPart(c, req); got != tt.want {
				t.Errorf("heldPart(write of %v, held %v) = %q, want %q", pair, tt.held, got, tt.want)
			}
		})
	}
}
