package main

import (
	"os"
	"strings"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// maxUserWatches is where Linux keeps the user's limit of inotify
// watches; elsewhere it does not exist and the limit is not named by
// its value.
const maxUserWatches = "/proc/sys/fs/inotify/max_user_watches"

// watchLimitNote says which watchers met the user's inotify limit, as
// status lists them (the coordinator's watcher, op "unwatched"; a FUSE
// worker's view, op "view-unwatched"), naming the sysctl and its value
// here; "" when none did.
func watchLimitNote(s leasegate.Status) string {
	var who []string
	for _, u := range s.Ungated {
		switch u.Op {
		case "unwatched":
			who = append(who, "the coordinator's watcher at "+gate.ShownPath(u.Path)+" (writes there go unseen)")
		case leasegate.OpViewUnwatched:
			who = append(who, u.Reporter+"'s FUSE view at "+gate.ShownPath(u.Path)+" (slower there, never stale)")
		}
	}
	if len(who) == 0 {
		return ""
	}
	limit := "fs.inotify.max_user_watches"
	if b, err := os.ReadFile(maxUserWatches); err == nil {
		limit += " = " + strings.TrimSpace(string(b))
	}
	return "the user's inotify limit was met by " + strings.Join(who, ", ") + ": " + limit +
		", shared by all of this user's processes; raise it with sysctl (e.g. sysctl fs.inotify.max_user_watches=524288), then restart the workers and the coordinator (leasegate serve --stop)"
}
