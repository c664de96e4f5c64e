package coordinator

import (
	"os"
	"path/filepath"

	"github.com/leasegate/leasegate/blocker"
)

// writeReport puts the report where an operator finds it: a JSON and a
// Markdown file, each replaced whole (a reader never sees half of one).
// The ledger holds the authoritative copy, so a failure here is logged,
// not fatal.
func (c *Coordinator) writeReport(r blocker.Report) {
	if c.cfg.BlockerDir == "" || r.Markdown() == "" {
		return
	}
	if err := os.MkdirAll(c.cfg.BlockerDir, 0o700); err != nil {
		c.log.Error("blocker dir", "error", err)
		return
	}
	js, _ := r.JSON()
	base := filepath.Join(c.cfg.BlockerDir, r.ID)
	for path, data := range map[string][]byte{base + ".json": js, base + ".md": []byte(r.Markdown())} {
		if err := replaceFile(path, data); err != nil {
			c.log.Error("write blocker report", "path", path, "error", err)
		}
	}
}

// refreshReport rewrites the files of blocker id from the book as it
// stands now. Rewrites are serialized and each reads the book afresh, so
// whichever finishes last leaves the latest state on disk (a report freed
// and resolved at once never ends up showing open). Call without c.mu.
func (c *Coordinator) refreshReport(id string) {
	c.reportMu.Lock()
	defer c.reportMu.Unlock()
	c.mu.Lock()
	rep, ok := c.book.Get(id)
	if ok {
		rep = c.annotate([]blocker.Report{rep}, c.clock.Now())[0]
	}
	c.mu.Unlock()
	if ok {
		c.writeReport(rep)
	}
}

// replaceFile writes data to a temporary file beside path and renames it
// over path.
func replaceFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
