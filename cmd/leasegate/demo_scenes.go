package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// sceneWoken: alice writes src/app.go (and so also holds its pair
// src/app_test.go); bob's write to it is denied and the contention
// heartbeat is emitted; alice finishes before bob's one retry is due, and
// bob's held write is granted the moment her leases are released
// (contention.woken), not at the retry.
func (d *demo) sceneWoken(ctx context.Context) error {
	d.say("alice edits src/app.go: the first write of a free file takes its lease (and its pair src/app_test.go)")
	alice, err := d.worker(ctx, "alice", "echo '// alice' >> src/app.go; echo 'alice: wrote src/app.go, working for 2s'; sleep 2")
	if err != nil {
		return err
	}
	if err := d.waitHeld(ctx, "alice", "src/app.go"); err != nil {
		return err
	}
	if err := d.show(ctx, "status"); err != nil {
		return err
	}
	d.say("bob writes src/app.go while alice holds it: denied, contention heartbeat, one retry after %s", demoRetryAfter)
	bob, err := d.worker(ctx, "bob", "echo '// bob' >> src/app.go && echo 'bob: my write went through'")
	if err != nil {
		return err
	}
	_ = alice.Wait()
	d.say("alice's worker ended: her leases are released, and bob's held write is granted at that moment (contention.woken), before its retry is due")
	_ = bob.Wait()
	if err := d.show(ctx, "history", "src/app.go", "--limit", "8"); err != nil {
		return err
	}
	if !d.happened(ctx, "src/app.go", gate.EventContention, "bob") || !d.happened(ctx, "src/app.go", gate.EventContentionWoken, "bob") ||
		!d.fileHas("src/app.go", "// bob") {
		return fmt.Errorf("demo: bob's write to src/app.go was not held and then granted when alice's lease was released")
	}
	return nil
}

// sceneReclaim: carol's sidecar is killed with SIGKILL; the liveness check
// finds its process gone and reclaims the lease with evidence.
func (d *demo) sceneReclaim(ctx context.Context) error {
	d.say("carol edits docs/guide.md, then her sidecar is killed with kill -9")
	carol, err := d.worker(ctx, "carol", "echo '- carol' >> docs/guide.md; echo 'carol: wrote docs/guide.md'; sleep 60")
	if err != nil {
		return err
	}
	if err := d.waitHeld(ctx, "carol", "docs/guide.md"); err != nil {
		return err
	}
	_ = carol.Process.Signal(syscall.SIGKILL)
	_ = carol.Wait()
	if err := d.waitFor(ctx, "the reclaim of carol's lease", func() bool {
		return d.happened(ctx, "docs/guide.md", gate.EventReclaimed, "")
	}); err != nil {
		return err
	}
	d.say("a dead owner never keeps a lease: the reclaim and its evidence")
	if err := d.show(ctx, "history", "docs/guide.md", "--limit", "4"); err != nil {
		return err
	}
	dave, err := d.worker(ctx, "dave", "echo '- dave' >> docs/guide.md && echo 'dave: wrote docs/guide.md at once'")
	if err != nil {
		return err
	}
	if err := dave.Wait(); err != nil || !d.fileHas("docs/guide.md", "- dave") {
		return fmt.Errorf("demo: dave could not write docs/guide.md after the reclaim (%v)", err)
	}
	return nil
}

// sceneBlocker: erin holds README.md and keeps working; frank's retry still
// finds it held: a blocker report, frank halted until an operator answers.
func (d *demo) sceneBlocker(ctx context.Context) error {
	d.say("erin edits README.md and keeps working; frank wants it too")
	erin, err := d.worker(ctx, "erin", "echo 'erin' >> README.md; echo 'erin: holding README.md'; sleep 30")
	if err != nil {
		return err
	}
	if err := d.waitHeld(ctx, "erin", "README.md"); err != nil {
		return err
	}
	frank, err := d.worker(ctx, "frank", "if echo frank >> README.md; then echo 'frank: wrote README.md'; else echo 'frank: write failed, moving on'; fi")
	if err != nil {
		return err
	}
	id, err := d.waitBlocker(ctx)
	if err != nil {
		return err
	}
	d.say("the retry found README.md still held: blocker report %s, frank is halted (SIGSTOP)", id)
	if err := d.show(ctx, "blockers", id); err != nil {
		return err
	}
	d.say("the operator answers: leasegate resolve %s --deny (frank's write fails with EBUSY, frank resumes)", id)
	if err := d.show(ctx, "resolve", id, "--deny", "--by", "demo-operator"); err != nil {
		return err
	}
	_ = frank.Wait()
	_ = erin.Process.Signal(syscall.SIGTERM)
	_ = erin.Wait()
	if d.fileHas("README.md", "frank") {
		return fmt.Errorf("demo: frank's denied write reached README.md")
	}
	return nil
}

func (d *demo) waitBlocker(ctx context.Context) (string, error) {
	deadline := time.Now().Add(demoRetryAfter + 10*time.Second)
	for time.Now().Before(deadline) {
		out, err := d.output(ctx, "blockers", "--json", "--no-start")
		var reps []blocker.Report
		if err == nil && json.Unmarshal([]byte(out), &reps) == nil && len(reps) > 0 {
			return reps[0].ID, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return "", fmt.Errorf("demo: no blocker appeared")
}

// sceneStopIdle: henry edits docs/todo.md, then his agent ends its turn
// (here `leasegate stop`, as an agent's Stop hook or a stopped process
// tree would); with no write for the stop-idle window his lease is
// released, though his worker still runs.
func (d *demo) sceneStopIdle(ctx context.Context) error {
	d.say("henry edits docs/todo.md, then his agent ends its turn: leasegate stop --as henry; %s without a write releases his lease", demoIdleAfter)
	henry, err := d.worker(ctx, "henry", "echo '- henry' >> docs/todo.md; echo 'henry: wrote docs/todo.md, now idle'; sleep 30")
	if err != nil {
		return err
	}
	defer func() {
		_ = henry.Process.Signal(syscall.SIGTERM)
		_ = henry.Wait()
	}()
	if err := d.waitHeld(ctx, "henry", "docs/todo.md"); err != nil {
		return err
	}
	if err := d.show(ctx, "stop", "--as", "henry"); err != nil {
		return err
	}
	if err := d.waitFor(ctx, "the stop-idle release of henry's lease", func() bool {
		return d.happened(ctx, "docs/todo.md", gate.EventReleased, "henry")
	}); err != nil {
		return err
	}
	return d.show(ctx, "history", "docs/todo.md", "--limit", "4")
}

// sceneCommit: grace edits docs/notes.md and commits it while still running:
// the committed, clean file's lease is released at once.
func (d *demo) sceneCommit(ctx context.Context) error {
	d.say("grace edits docs/notes.md and commits it; she keeps running, but the committed file's lease is released")
	script := strings.Join([]string{
		"echo '# notes' > docs/notes.md", "git add docs/notes.md", "git commit -qm 'add notes'",
		"echo 'grace: committed docs/notes.md'", "sleep 2",
	}, " && ")
	grace, err := d.worker(ctx, "grace", script)
	if err != nil {
		return err
	}
	if err := d.waitFor(ctx, "the release of docs/notes.md on grace's commit", func() bool {
		return d.happened(ctx, "docs/notes.md", gate.EventReleased, "grace")
	}); err != nil {
		return err
	}
	if err := d.show(ctx, "history", "docs/notes.md", "--limit", "4"); err != nil {
		return err
	}
	return grace.Wait()
}

// demoWait bounds every wait for a step of the story; the slowest, the
// blocker, comes one retry window after its contention.
const demoWait = demoRetryAfter + 15*time.Second

// waitFor polls cond until it holds, or fails naming what did not happen.
func (d *demo) waitFor(ctx context.Context, what string, cond func() bool) error {
	deadline := time.Now().Add(demoWait)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %s did not happen within %s", what, demoWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// waitHeld waits until owner holds a lease on path.
func (d *demo) waitHeld(ctx context.Context, owner, path string) error {
	return d.waitFor(ctx, owner+"'s lease on "+path, func() bool {
		out, err := d.output(ctx, "status", "--json", "--no-start")
		var st leasegate.Status
		if err != nil || json.Unmarshal([]byte(out), &st) != nil {
			return false
		}
		for _, l := range st.Leases {
			if l.Owner.Name == owner && slices.Contains(l.Scope.Paths, path) {
				return true
			}
		}
		return false
	})
}

// happened reports whether path's history holds an event of type typ (by
// actor, unless actor is empty).
func (d *demo) happened(ctx context.Context, path string, typ gate.EventType, actor string) bool {
	out, err := d.output(ctx, "history", path, "--json", "--limit", "0", "--no-start")
	var evs []gate.Event
	if err != nil || json.Unmarshal([]byte(out), &evs) != nil {
		return false
	}
	return slices.ContainsFunc(evs, func(e gate.Event) bool { return e.Type == typ && (actor == "" || e.Actor == actor) })
}

// fileHas reports whether the demo repository's file at path contains s.
func (d *demo) fileHas(path, s string) bool {
	b, err := os.ReadFile(filepath.Join(d.dir, path))
	return err == nil && strings.Contains(string(b), s)
}
