package hooks

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
)

// composedBefore reports whether ev's tool writes a whole file the model
// composed before the call (Claude Code's and Cursor's Write, Gemini
// CLI's write_file), rather than an edit the agent applies to the file as
// it finds it when the tool runs (Edit, StrReplace, replace, apply_patch,
// which fail when the text they change is gone).
func composedBefore(ev Event) bool {
	switch ev.Agent {
	case ClaudeCode, Cursor:
		return ev.Tool == "Write"
	case Gemini:
		return ev.Tool == "write_file"
	}
	return false
}

// stampsOf is what each of paths (relative to root) is now.
func stampsOf(root string, paths []string) []stamp {
	out := make([]stamp, len(paths))
	for i, p := range paths {
		out[i] = stampOf(filepath.Join(root, filepath.FromSlash(p)))
	}
	return out
}

// waitedLease is the other owner's lease a write waited for.
type waitedLease struct {
	holder string
	since  time.Time // when it was granted
}

// waitedOn is the lease a contended answer names.
func waitedOn(r leasegate.Result) waitedLease {
	switch {
	case r.Contention != nil:
		return waitedLease{r.Contention.Holder.Owner.Name, r.Contention.Holder.AcquiredAt}
	case r.Holder != nil:
		return waitedLease{r.Holder.Owner.Name, r.Holder.AcquiredAt}
	}
	return waitedLease{holder: "another owner"}
}

// changed lists the paths that the holder may have changed while it held
// them: modified since its lease was granted (by the host's clock, on
// which the coordinator and the agent agree unless they run on machines
// whose clocks differ), or made, removed or written while the write waited
// (before is what they were when it asked).
func (l waitedLease) changed(root string, paths []string, before []stamp) []string {
	var out []string
	for i, now := range stampsOf(root, paths) {
		if now != before[i] || now.Exists && !l.since.IsZero() && now.Mtime >= l.since.UnixNano() {
			out = append(out, paths[i])
		}
	}
	return out
}

// staleWrite refuses a whole-file write whose files the holder it waited
// for changed: written now, it would put back what the model composed
// before that change (the model cannot have seen a change made while the
// file was another's) and silently undo the holder's work. The
// session holds the files now, so the write made again on what they hold
// is granted at once.
func staleWrite(changed []string, holder string) Decision {
	files := strings.Join(changed, ", ")
	return deny(fmt.Sprintf("leasegate: %s changed under %s's lease, which this write waited for and this session now holds. "+
		"The content of this write was composed before that change and would undo it: read %s again and write it anew from what it holds now.",
		files, holder, files))
}
