//go:build !(darwin || freebsd || netbsd || openbsd || dragonfly)

package watch

// watchCost is one watch per directory: inotify and
// ReadDirectoryChangesW hold no descriptor per watched file.
func watchCost(string) int { return 1 }

// watchLimit is the limit a large workspace meets: inotify (Linux) takes
// one watch per directory, counted for all of the user's processes.
const watchLimit = "each watched directory takes an inotify watch, at most fs.inotify.max_user_watches (sysctl) for all of this user's processes"

// DefaultBudget is no limit: inotify's own (fs.inotify.max_user_watches)
// is said by Add's error when it is met.
func DefaultBudget() int { return -1 }

// startLimit is what a watcher that cannot start has met: an inotify
// instance is counted for all of the user's processes, and is a
// descriptor of the process (both refusals are EMFILE).
const startLimit = "each watcher takes an inotify instance, at most fs.inotify.max_user_instances (sysctl) for all of this user's processes, and a descriptor (ulimit -n): " +
	"end programs that hold many (editors, file watchers) or raise the limit, then restart the coordinator (leasegate serve --stop)"
