package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestLedgerCheckWithoutLedger: `ledger check` in a workspace where no
// coordinator ever ran says there is nothing to refuse (exit 0) and
// makes nothing; it said "stop the coordinator first" with exit 1, as
// if one were running, because its serve lock could not be made.
func TestLedgerCheckWithoutLedger(t *testing.T) {
	root := mustGitInit(t)
	if err := cmdLedger(context.Background(), []string{"check", "--workspace", root}); err != nil {
		t.Errorf("ledger check of a workspace with no ledger = %v, want ok", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "leasegate")); !os.IsNotExist(err) {
		t.Errorf("ledger check made the state directory (stat: %v)", err)
	}
}
