package hooks

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// Shell commands are not gated by hooks: a hook sees the command line, not
// the files it will write. The hooks find those writes afterwards: a
// snapshot of the dirty files (git status plus each file's size, mode and
// mtime) before the command and one after it; every gated file that
// differs and is leased by another owner is reported to the coordinator
// as an ungated write that collided with that lease, and told to the
// model. Files nobody holds are not acquired for the session: a write seen
// after the fact may be another process's, and a lease taken on such
// evidence could block its real author.
//
// The window is the command's run time, so a write that another agent
// makes to a file it holds while the command runs is reported too; the
// report names the reporter as a witness, not as the author.

// stamp is what a snapshot keeps of one dirty file.
type stamp struct {
	Exists bool   `json:"exists"`
	Size   int64  `json:"size"`
	Mode   uint32 `json:"mode"`
	Mtime  int64  `json:"mtime_ns"`
}

// snapshot maps the workspace's dirty files to their stamps.
type snapshot map[string]stamp

const lastSnapshot = "shell-last"

// snapshotKey names the snapshot taken before one shell call.
func snapshotKey(ev Event) string {
	if ev.ToolUseID == "" {
		return "shell-pending"
	}
	return "shell-" + url.PathEscape(ev.ToolUseID)
}

// shellBefore snapshots the tree before a shell command and records
// activity. A command of Gemini CLI's that may commit gets git's hooks
// back (withHooksOn), under a sidecar too: the sidecar gates no write of
// .git, so the guard is what refuses a commit there.
func (h *Handler) shellBefore(ctx context.Context, ev Event) Decision {
	ws, err := h.workspace(ev)
	if err != nil || ws.GitDir == "" {
		return Decision{}
	}
	on := Decision{Command: withHooksOn(ws, ev.Command)}
	o, err := h.owner(ws, ev)
	if err != nil {
		return on
	}
	h.activity(ctx, ws, o.name)
	if h.cfg.UnderSidecar {
		return on // the sidecar gates the command's writes itself
	}
	snap, err := takeSnapshot(ctx, ws)
	if err != nil {
		on.Warning = "leasegate: cannot snapshot the tree before the shell command: " + err.Error()
		return on
	}
	sess := h.session(ws, o.key)
	if err := sess.writeJSON(snapshotKey(ev)+".json", snap); err != nil {
		h.log.Debug("cannot keep the snapshot", "error", err)
	}
	_ = sess.writeJSON(snapshotKey(ev)+headSuffix, headOf(ctx, ws.Root))
	return on
}

// headSuffix names, after a snapshot's key, the HEAD recorded with it.
const headSuffix = "-head.json"

// shellAfter compares the tree with the snapshot from before the command
// (or, when there is none, after the session's previous command) and
// reports the changed files that other owners hold.
func (h *Handler) shellAfter(ctx context.Context, ev Event) Decision {
	ws, err := h.workspace(ev)
	if err != nil || ws.GitDir == "" {
		return Decision{}
	}
	o, err := h.owner(ws, ev)
	if err != nil || h.cfg.UnderSidecar {
		return Decision{}
	}
	sess := h.session(ws, o.key)
	var before snapshot
	found := sess.readJSON(snapshotKey(ev)+".json", &before)
	_ = os.Remove(filepath.Join(sess.dir, snapshotKey(ev)+".json"))
	if !found {
		found = sess.readJSON(lastSnapshot+".json", &before)
	}
	var head string
	if !sess.readJSON(snapshotKey(ev)+headSuffix, &head) {
		sess.readJSON(lastSnapshot+headSuffix, &head)
	}
	_ = os.Remove(filepath.Join(sess.dir, snapshotKey(ev)+headSuffix))
	after, err := takeSnapshot(ctx, ws)
	if err != nil {
		return warn("leasegate: cannot snapshot the tree after the shell command: " + err.Error())
	}
	_ = sess.writeJSON(lastSnapshot+".json", after)
	now := headOf(ctx, ws.Root)
	_ = sess.writeJSON(lastSnapshot+headSuffix, now)
	var committed Decision
	if head != "" && now != head {
		committed = h.shellCommitted(ctx, ws, o.name, head)
	}
	if !found {
		return committed
	}
	return withContext(h.reportUngated(ctx, ws, o.name, changedFiles(ws, before, after)), committed)
}

// withContext adds what more says to the model, and its warning, to d.
func withContext(d, more Decision) Decision {
	d.Context = strings.TrimSpace(d.Context + "\n" + more.Context)
	d.Warning = strings.TrimSpace(d.Warning + "\n" + more.Warning)
	return d
}

// reportUngated reports the gated files among changed that another owner
// holds.
func (h *Handler) reportUngated(ctx context.Context, ws *workspace.Workspace, name string, changed []string) Decision {
	gated := gatedOnly(ws, changed)
	if len(gated) == 0 {
		return Decision{}
	}
	ctx, cancel := context.WithTimeout(ctx, lifecycleTimeout)
	defer cancel()
	cl, err := h.cfg.Connect(ctx, ws, false)
	if err != nil {
		return Decision{} // no coordinator running: nobody holds anything
	}
	defer cl.Close()
	var hits []string
	for _, rel := range gated {
		l, ok := heldByOther(ctx, cl, rel, name)
		if !ok {
			continue
		}
		if err := cl.ReportUngated(ctx, leasegate.UngatedWrite{Path: rel, Op: "shell", Reporter: name}); err != nil {
			h.log.Debug("cannot report an ungated write", "path", rel, "error", err)
		}
		hits = append(hits, fmt.Sprintf("%s (leased by %s)", rel, l.Owner.Name))
	}
	if len(hits) == 0 {
		return Decision{}
	}
	return Decision{Context: fmt.Sprintf("leasegate: the shell command changed files that other owners hold, bypassing the lease gate: %s. This was reported to the operator. Do not change these files again; tell the user.",
		strings.Join(hits, ", "))}
}

func heldByOther(ctx context.Context, cl Coordinator, rel, name string) (gate.Lease, bool) {
	ls, err := cl.Leases(ctx, rel)
	if err != nil {
		return gate.Lease{}, false
	}
	for _, l := range ls {
		if l.State == gate.StateActive && !l.HeldBy(name) {
			return l, true
		}
	}
	return gate.Lease{}, false
}

func gatedOnly(ws *workspace.Workspace, rels []string) []string {
	if len(rels) == 0 {
		return nil
	}
	rule, err := workspace.NewRule(ws, nil)
	if err != nil {
		return nil
	}
	defer rule.Close()
	var out []string
	for _, rel := range rels {
		if rule.Classify(rel) == workspace.Gated {
			out = append(out, rel)
		}
	}
	return out
}

// takeSnapshot stamps every file git reports as changed, untracked ones
// included, and both names of a rename, in the workspace's repository and
// in each submodule checked out in its tree: the superproject's status
// shows a submodule changed inside only as the submodule's directory.
func takeSnapshot(ctx context.Context, ws *workspace.Workspace) (snapshot, error) {
	subs, err := ws.Submodules()
	if err != nil {
		return nil, err
	}
	snap := snapshot{}
	for _, dir := range append([]string{ws.Root}, subs...) {
		if err := snapshotRepo(ctx, ws, dir, snap); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// snapshotRepo adds to snap the files git reports as changed in the
// repository at dir, named from the workspace root.
func snapshotRepo(ctx context.Context, ws *workspace.Workspace, dir string, snap snapshot) error {
	cmd := exec.CommandContext(ctx, "git", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	cmd.Dir, cmd.Env = dir, gitEnv()
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git status in %s: %w", dir, err)
	}
	prefix, _ := ws.Rel(dir)
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) > 3 {
			rel := path.Join(filepath.ToSlash(prefix), string(rec[3:]))
			snap[rel] = stampOf(filepath.Join(ws.Root, filepath.FromSlash(rel)))
		}
	}
	return nil
}

func stampOf(abs string) stamp {
	fi, err := os.Lstat(abs)
	if err != nil {
		return stamp{}
	}
	return stamp{Exists: true, Size: fi.Size(), Mode: uint32(fi.Mode()), Mtime: fi.ModTime().UnixNano()}
}

// changedFiles lists the files that differ between two snapshots. A file
// dirty only before is changed if its stamp moved (reverted by the
// command), not if it was committed as it was.
func changedFiles(ws *workspace.Workspace, before, after snapshot) []string {
	var out []string
	for rel, a := range after {
		if b, ok := before[rel]; !ok || b != a {
			out = append(out, rel)
		}
	}
	for rel, b := range before {
		if _, ok := after[rel]; !ok && stampOf(filepath.Join(ws.Root, rel)) != b {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// gitEnv is the environment without the variables that would point git at
// another repository or index (git sets some of them when it runs hooks).
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_PREFIX":
			continue
		}
		env = append(env, kv)
	}
	return env
}
