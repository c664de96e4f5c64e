//go:build !linux && !darwin

package bolt

import (
	"fmt"
	"os"
)

// writeThrough is no flag here: not every system Go targets has O_DSYNC
// (FreeBSD's x/sys does not name it, Windows has none), so each write is
// followed by File.Sync instead.
const writeThrough = 0

// flushWrite makes what was written to f durable: fsync on the BSDs,
// FlushFileBuffers on Windows.
func flushWrite(f *os.File) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("flush journal %s: %w", f.Name(), err)
	}
	return nil
}
