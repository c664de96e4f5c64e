package bolt

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// writeThrough is no flag on macOS: O_DSYNC and fsync there hand the data
// to the drive but leave it in the drive's volatile cache, which a power
// loss empties. Durability takes F_FULLFSYNC after the write.
const writeThrough = 0

// flushWrite makes what was written to f durable with F_FULLFSYNC, which
// asks the drive to flush its cache. File systems that do not support it
// (some network and FUSE ones) answer ENOTSUP; fsync is the best they
// offer, as the standard library's File.Sync does on darwin.
func flushWrite(f *os.File) error {
	_, err := unix.FcntlInt(f.Fd(), unix.F_FULLFSYNC, 0)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EINVAL) {
		err = unix.Fsync(int(f.Fd()))
	}
	if err != nil {
		return fmt.Errorf("flush journal %s: %w", f.Name(), err)
	}
	return nil
}
