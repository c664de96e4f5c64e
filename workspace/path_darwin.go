package workspace

import (
	"golang.org/x/sys/unix"
)

// pcCaseSensitive is _PC_CASE_SENSITIVE of macOS's <unistd.h>, which
// golang.org/x/sys/unix does not name.
const pcCaseSensitive = 11

// volumes is what the volumes of the workspaces this process opened say
// about case; a leasegate process works for one workspace.
var volumes volumeCase

// native returns the path rules of macOS: "/" alone separates, names
// that differ only in case are one name unless the workspace's volume was
// formatted case-sensitive (see volumeCase), and names that differ only
// in Unicode normalization are one name on every APFS and HFS+ volume.
func native() pathRules { return pathRules{sep: '/', fold: volumes.folds(), normalizes: true} }

// adoptVolume asks the volume holding w's root, once as the workspace is
// opened, whether it folds case, and where it does spells w's directories
// as they are on disk, so that a root found from a directory named in
// another case (cd ~/REPO) is the one every resolved path starts with.
func adoptVolume(w *Workspace) {
	volumes.saw(foldsCase(unix.Pathconf(w.Root, pcCaseSensitive)))
	r := native()
	if !r.fold {
		return
	}
	for _, d := range []*string{&w.Root, &w.GitDir, &w.CommonDir, &w.StateDir} {
		if *d != "" {
			*d = r.resolveExisting(*d)
		}
	}
}
