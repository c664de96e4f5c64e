package workspace

import (
	"fmt"
	"strconv"
)

// Class is what a workspace path is to the gate. The zero Class is Gated,
// so a classification that never happened fails toward gating.
type Class uint8

const (
	// Gated paths pass the lease gate before every mutation.
	Gated Class = iota
	// Outside paths are not in the workspace; the gate ignores them.
	Outside
	// GitDir paths are under .git/: not gated, git serializes itself with
	// its own lock files.
	GitDir
	// StateDir paths are leasegate's state directory (or, for a directory
	// operation, contain it). Workers may never write them; the sidecar
	// refuses such writes.
	StateDir
	// Ignored paths are ignored by git and not gated by default.
	Ignored
	// Excluded paths match an exclude glob of leasegate.json.
	Excluded
	// Operator is leasegate.json itself: the gating rule is the
	// operator's. Workers may not change it; the sidecar refuses.
	Operator
	// Root is the workspace root itself: only what lies beneath it is
	// gated (a rename or removal of the root that holds the state
	// directory is StateDir).
	Root
)

var classNames = [...]string{
	Gated:    "gated",
	Outside:  "outside",
	GitDir:   "git-dir",
	StateDir: "state-dir",
	Ignored:  "ignored",
	Excluded: "excluded",
	Operator: "operator-file",
	Root:     "root",
}

// String returns the class's name as status output shows it.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// MarshalText makes a Class a JSON string.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText parses a name String returns.
func (c *Class) UnmarshalText(b []byte) error {
	for i, name := range classNames {
		if name == string(b) {
			*c = Class(i)
			return nil
		}
	}
	return fmt.Errorf("unknown path class %q", b)
}
