package sidecar

import (
	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// identities looks up the files that gated paths (workspace-relative)
// name now (Workspace.Files): one lstat per path, paid only by mutations
// that go to the coordinator; those the sidecar answers from memory never
// look.
func (s *Sidecar) identities(paths []string) []gate.File { return s.cfg.Workspace.Files(paths) }

// sameFile names the holder's path when the holder's lease covers a
// requested file under another name: " (the same file as f.txt)".
func sameFile(holder gate.Lease, req leasegate.MutateRequest) string {
	hp, p := gate.SameFile(holder, gate.Scope{Files: req.Files})
	if hp == "" || hp == p {
		return ""
	}
	return " (the same file as " + gate.ShownPath(hp) + ")"
}
