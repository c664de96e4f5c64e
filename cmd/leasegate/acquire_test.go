package main

import (
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestAcquireRefusesWhatNoWorkerMayWrite: a check-out of leasegate.json or
// of the state directory would make nothing writable, so acquire refuses
// it as a usage error before asking the coordinator; a glob that merely
// may match leasegate.json is leased as before.
func TestAcquireRefusesWhatNoWorkerMayWrite(t *testing.T) {
	root := mustGitInit(t)
	ws, err := workspace.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, args := range [][]string{{workspace.ConfigFile}, {"a.go", ".git/leasegate/ledger.db"}, {".git/leasegate/**"}, {filepath.Join(root, workspace.ConfigFile)}} {
		sc, err := scopeOf(ws, "", args)
		if code, _ := classify(err); err == nil || code != exitUsage {
			t.Errorf("acquire %q = %+v, %v; want a usage error", args, sc, err)
		}
	}
	for _, args := range [][]string{{"a.go"}, {"*.json"}, {".git/HEAD"}} {
		if sc, err := scopeOf(ws, "", args); err != nil || len(sc.Paths) != 1 {
			t.Errorf("acquire %q = %+v, %v; want its scope", args, sc, err)
		}
	}
}
