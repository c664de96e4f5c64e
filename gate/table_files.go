package gate

import "slices"

// indexFiles records the file identities of the active lease in slot s.
func (t *Table) indexFiles(s int32, fs []File) {
	if len(fs) == 0 {
		return
	}
	t.files[s] = slices.Clone(fs)
	for _, f := range fs {
		k := f.key()
		if !slices.Contains(t.byFile[k], s) { // two paths of one lease may name one file
			t.byFile[k] = append(t.byFile[k], s)
		}
	}
}

// unindexFiles drops an ended lease from the identity index; the lease
// keeps its identities for as long as the table remembers it.
func (t *Table) unindexFiles(s int32) {
	for _, f := range t.files[s] {
		k := f.key()
		ss := slices.DeleteFunc(t.byFile[k], func(x int32) bool { return x == s })
		if len(ss) == 0 {
			delete(t.byFile, k)
		} else {
			t.byFile[k] = ss
		}
	}
}

// filesOf returns a copy of the identities the lease in slot s records.
func (t *Table) filesOf(s int32) []File {
	return slices.Clone(t.files[s])
}
