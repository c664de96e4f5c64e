package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/leasegate/leasegate/blocker"
)

// sceneRetryGranted: alice writes src/app.go (and so also holds its pair
// src/app_test.go); bob's write to it is denied, the contention heartbeat
// is emitted, and at the one retry alice has finished: bob is granted.
func (d *demo) sceneRetryGranted(ctx context.Context) error {
	d.say("alice edits src/app.go: the first write of a free file takes its lease (and its pair src/app_test.go)")
	alice, err := d.worker(ctx, "alice", "echo '// alice' >> src/app.go; echo 'alice: wrote src/app.go, working for 2s'; sleep 2")
	if err != nil {
		return err
	}
	time.Sleep(700 * time.Millisecond)
	if err := d.show(ctx, "status"); err != nil {
		return err
	}
	d.say("bob writes src/app.go while alice holds it: denied, contention heartbeat, one retry after %s", demoRetryAfter)
	bob, err := d.worker(ctx, "bob", "echo '// bob' >> src/app.go && echo 'bob: my write went through'")
	if err != nil {
		return err
	}
	_ = alice.Wait()
	d.say("alice's worker ended: her leases are released; bob's retry finds the file free")
	_ = bob.Wait()
	return d.show(ctx, "history", "src/app.go", "--limit", "8")
}

// sceneReclaim: carol's sidecar is killed with SIGKILL; the liveness check
// finds its process gone and reclaims the lease with evidence.
func (d *demo) sceneReclaim(ctx context.Context) error {
	d.say("carol edits docs/guide.md, then her sidecar is killed with kill -9")
	carol, err := d.worker(ctx, "carol", "echo '- carol' >> docs/guide.md; echo 'carol: wrote docs/guide.md'; sleep 60")
	if err != nil {
		return err
	}
	time.Sleep(800 * time.Millisecond)
	_ = carol.Process.Signal(syscall.SIGKILL)
	_ = carol.Wait()
	time.Sleep(time.Second)
	d.say("a dead owner never keeps a lease: the reclaim and its evidence")
	if err := d.show(ctx, "history", "docs/guide.md", "--limit", "4"); err != nil {
		return err
	}
	dave, err := d.worker(ctx, "dave", "echo '- dave' >> docs/guide.md && echo 'dave: wrote docs/guide.md at once'")
	if err != nil {
		return err
	}
	return dave.Wait()
}

// sceneBlocker: erin holds README.md and keeps working; frank's retry still
// finds it held: a blocker report, frank halted until an operator answers.
func (d *demo) sceneBlocker(ctx context.Context) error {
	d.say("erin edits README.md and keeps working; frank wants it too")
	erin, err := d.worker(ctx, "erin", "echo 'erin' >> README.md; echo 'erin: holding README.md'; sleep 30")
	if err != nil {
		return err
	}
	time.Sleep(700 * time.Millisecond)
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
		time.Sleep(200 * time.Millisecond)
	}
	return "", fmt.Errorf("demo: no blocker appeared")
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
	time.Sleep(1500 * time.Millisecond)
	if err := d.show(ctx, "history", "docs/notes.md", "--limit", "4"); err != nil {
		return err
	}
	return grace.Wait()
}
