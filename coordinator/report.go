package coordinator

import (
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/leasegate/leasegate/blocker"
)

// writeReport puts the report where an operator finds it: a JSON and a
// Markdown file, each replaced whole (a reader never sees half of one).
// The ledger holds the authoritative copy, so a failure here is logged,
// not fatal; the report is remembered and written again at the next
// sweep, so a full disk only delays its files. A report that keeps
// failing is logged once.
func (c *Coordinator) writeReport(r blocker.Report) {
	if c.cfg.BlockerDir == "" || r.Markdown() == "" {
		return
	}
	js, _ := r.JSON()
	base := filepath.Join(c.cfg.BlockerDir, r.ID)
	var failed error
	if err := os.MkdirAll(c.cfg.BlockerDir, 0o700); err != nil {
		failed = err
	}
	for path, data := range map[string][]byte{base + ".json": js, base + ".md": []byte(r.Markdown())} {
		if failed != nil {
			break
		}
		if err := replaceFile(path, data); err != nil {
			failed = err
		}
	}
	c.unwrittenMu.Lock()
	defer c.unwrittenMu.Unlock()
	switch {
	case failed == nil && c.unwritten[r.ID]:
		delete(c.unwritten, r.ID)
		c.log.Info("blocker report written", "blocker", r.ID, "dir", c.cfg.BlockerDir)
	case failed != nil && !c.unwritten[r.ID]:
		if c.unwritten == nil {
			c.unwritten = make(map[string]bool)
		}
		c.unwritten[r.ID] = true
		c.log.Error("write blocker report; written again at the next sweep", "blocker", r.ID, "dir", c.cfg.BlockerDir, "error", failed)
	}
}

// rewriteUnwritten writes again the reports whose files could not be
// written. Call without c.mu.
func (c *Coordinator) rewriteUnwritten() {
	c.unwrittenMu.Lock()
	ids := slices.Sorted(maps.Keys(c.unwritten))
	c.unwrittenMu.Unlock()
	for _, id := range ids {
		c.refreshReport(id)
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
		return
	}
	c.unwrittenMu.Lock()
	delete(c.unwritten, id) // pruned from the book: nothing left to write
	c.unwrittenMu.Unlock()
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
