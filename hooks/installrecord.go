package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// installRecord remembers a settings file as it was before install
// first changed it and as install left it, so that uninstall can give
// back the exact original bytes when nothing else changed meanwhile
// (even whitespace install cannot tell apart from its own, such as an
// empty "hooks": {} it filled). It lives in the user's state directory,
// not beside the file.
type installRecord struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	Before  []byte `json:"before"`
	After   string `json:"after_sha256"` // of the bytes install wrote
	// CreatedDirs are the directories install made for the file,
	// deepest first: uninstall removes those it leaves empty.
	CreatedDirs []string `json:"created_dirs,omitempty"`
}

// recordFile is where the record of the settings file path is kept:
// $XDG_STATE_HOME/leasegate/installs, else ~/.local/state/leasegate/installs.
func recordFile(path string) (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(dir, "leasegate", "installs", hex.EncodeToString(sum[:12])+".json"), nil
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// readRecord returns the record of path, if there is one for it.
func readRecord(path string) (installRecord, bool) {
	var r installRecord
	ok := loadRecord(path, &r) && r.Path == path
	return r, ok
}

// loadRecord decodes the record kept under key into v, reporting whether
// there is one that decodes.
func loadRecord(key string, v any) bool {
	f, err := recordFile(key)
	if err != nil {
		return false
	}
	data, err := os.ReadFile(f)
	return err == nil && json.Unmarshal(data, v) == nil
}

// saveRecord keeps v as the record under key.
func saveRecord(key string, v any) error {
	f, err := recordFile(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFileAtomic(f, data, 0o600)
}

// keepRecord records that install turned before (existed: the file was
// there) into after. When the file was still as install last left it,
// the first original is kept.
func keepRecord(path string, existed bool, before, after []byte, created []string) error {
	r, ok := readRecord(path)
	if !ok || r.After != digest(before) {
		r = installRecord{Path: path, Existed: existed, Before: before}
	}
	r.CreatedDirs = append(r.CreatedDirs, created...)
	r.After = digest(after)
	return saveRecord(path, r)
}

// dropRecord forgets the record of path.
func dropRecord(path string) {
	if f, err := recordFile(path); err == nil {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
}

// missingDirs are the directories that MkdirAll(dir) would make, deepest
// first.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// removeEmptyDirs removes each of dirs that is empty, deepest first, and
// says which.
func removeEmptyDirs(dirs []string) []string {
	var did []string
	for _, d := range dirs {
		if os.Remove(d) == nil {
			did = append(did, "removed "+d+", which install had created and is now empty")
		}
	}
	return did
}
