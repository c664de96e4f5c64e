package leasegate

import (
	"context"
	"fmt"
	"slices"
)

// LedgerView is the ledger a coordinator serves, as status shows it: the
// lease table shared on etcd (Endpoints and Workspace) or the bbolt file
// in the workspace's state directory (File), and what named it.
type LedgerView struct {
	// Endpoints are the etcd client URLs, sorted; nil for the file.
	Endpoints []string `json:"etcd_endpoints,omitempty"`
	// Workspace is the name the clones sharing the table give; "" for
	// the file.
	Workspace string `json:"etcd_workspace,omitempty"`
	// File is the bbolt ledger's path; "" for a shared one.
	File string `json:"file,omitempty"`
	// From is what named it: an environment variable (LEASEGATE_CLUSTER)
	// or leasegate.json; "" when neither names a cluster (the default).
	From string `json:"from,omitempty"`
}

// Shared reports whether the ledger is on etcd.
func (l LedgerView) Shared() bool { return l.Workspace != "" }

// Same reports whether l and o are one ledger, whatever named each: the
// same file, or the same workspace on the same etcd endpoints (in any
// order). Two address lists of one cluster are not the same here: which
// cluster an address reaches is etcd's to say, and a guess that was wrong
// would grant a file another machine holds. SameWorkspace says when to
// ask etcd.
func (l LedgerView) Same(o LedgerView) bool {
	return l.SameWorkspace(o) && slices.Equal(sorted(l.Endpoints), sorted(o.Endpoints))
}

// SameWorkspace reports whether l and o are one ledger if their etcd
// endpoints reach one cluster: the same file, or the same workspace name
// on etcd.
func (l LedgerView) SameWorkspace(o LedgerView) bool {
	return l.File == o.File && l.Workspace == o.Workspace
}

// ClusterAsker asks etcd whether two lists of endpoints reach one cluster
// (its cluster id at each), or says why it could not be asked.
type ClusterAsker func(ctx context.Context, a, b []string) (bool, error)

// SameAsking reports whether l and o are one ledger, as Same does, and
// when only their endpoints differ asks ask whether both reach one etcd
// cluster: then they are one lease table. A nil ask, or an error from it,
// leaves them two ledgers (the error says why etcd could not be asked);
// a check that cannot tell refuses rather than grant on another table.
func (l LedgerView) SameAsking(ctx context.Context, o LedgerView, ask ClusterAsker) (bool, error) {
	if l.Same(o) {
		return true, nil
	}
	if ask == nil || !l.Shared() || !l.SameWorkspace(o) {
		return false, nil
	}
	return ask(ctx, l.Endpoints, o.Endpoints)
}

// String names the ledger: `workspace "acme/web" on etcd [http://...]`,
// or the file's path.
func (l LedgerView) String() string {
	if !l.Shared() {
		return l.File
	}
	return fmt.Sprintf("workspace %q on etcd %v", l.Workspace, sorted(l.Endpoints))
}

// Source says what named the ledger, for a message: "named by " the
// variable or file in From, or that neither names a cluster.
func (l LedgerView) Source() string {
	if l.From == "" {
		return "no cluster named"
	}
	return "named by " + l.From
}

// Served says what a coordinator serves, for a message about a ledger
// it was found serving: "serves " the ledger and what named it, or, nil
// (a coordinator too old to say), that it does not say.
func Served(l *LedgerView) string {
	if l == nil {
		return "does not say which ledger it serves (an older leasegate)"
	}
	return fmt.Sprintf("serves %s (%s)", l, l.Source())
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
