package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInstructionsNameTheSubmodule: a server started inside a submodule
// of the workspace tells the model that paths are the superproject's and
// how to name the submodule's files; elsewhere it does not.
func TestInstructionsNameTheSubmodule(t *testing.T) {
	w := newWorld(t)
	if got := w.session(t, "alice", nil).InitializeResult().Instructions; strings.Contains(got, "submodule") {
		t.Errorf("instructions at the workspace root = %q, want no submodule named", got)
	}
	w.ws.Submodule = filepath.Join(w.ws.Root, "vendor", "lib")
	got := w.session(t, "bob", nil).InitializeResult().Instructions
	if !strings.Contains(got, "the submodule vendor/lib/ you work in") || !strings.Contains(got, "vendor/lib/main.go, not main.go") {
		t.Errorf("instructions in a submodule = %q, want it named with its prefix", got)
	}
}
