package workspace

import (
	"sync/atomic"

	"golang.org/x/text/unicode/norm"
)

// volumeCase gathers what the volumes of the workspaces a process opened
// say about case, where that is a volume's choice (macOS: APFS and HFS+
// fold case by default, and either can be formatted case-sensitive). The
// zero value folds. Names are taken apart by case only when every volume
// asked tells them apart: folding on a case-sensitive volume can at worst
// make two files one lease (a needless wait), where not folding on a
// folding one lets a write pass as outside the workspace, ungated.
type volumeCase struct {
	sensitive, folding atomic.Bool
}

// saw records the answer of one workspace's volume.
func (v *volumeCase) saw(folds bool) {
	if folds {
		v.folding.Store(true)
	} else {
		v.sensitive.Store(true)
	}
}

// folds reports whether names that differ only in case are one name.
func (v *volumeCase) folds() bool {
	return !v.sensitive.Load() || v.folding.Load()
}

// foldsCase reads a volume's answer to pathconf(_PC_CASE_SENSITIVE): 1
// tells names apart by case, 0 folds. No answer (an error, or -1 from a
// file system that does not say) is taken as folding, the default format
// and the side that never lets a write pass ungated.
func foldsCase(answer int, err error) bool {
	return err != nil || answer < 1
}

// respelling reports whether name, read from the disk for a path whose
// final element was written elem, is elem spelt as the volume keeps it on
// a volume that folds case and takes composed and decomposed Unicode as
// one name (APFS; HFS+ keeps names decomposed): "Foo.go" for "FOO.go",
// "é" decomposed for "É" composed. Any other name is not elem's: the root
// of a mounted volume answers with the volume's label.
func respelling(name, elem string) bool {
	r := pathRules{sep: '/', fold: true}
	return r.same(name, elem) || r.same(norm.NFC.String(name), norm.NFC.String(elem))
}
