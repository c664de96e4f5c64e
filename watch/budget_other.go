//go:build !(darwin || freebsd || netbsd || openbsd || dragonfly)

package watch

// watchCost is one watch per directory: inotify and
// ReadDirectoryChangesW hold no descriptor per watched file.
func watchCost(string) int { return 1 }

// DefaultBudget is no limit: inotify's own (fs.inotify.max_user_watches)
// is said by Add's error when it is met.
func DefaultBudget() int { return -1 }
