package bolt

import (
	"fmt"
	"strings"

	"github.com/leasegate/leasegate/store"
)

// CorruptError says where a ledger's files stop being readable: the file,
// the byte offset and the first event that cannot be read back. It
// unwraps to store.ErrCorrupt. Open returns it instead of starting on
// less than the ledger acknowledged; `leasegate ledger recover` is the way
// out.
type CorruptError struct {
	File   string // the damaged file
	Offset int64  // where the damage starts in File, -1 when not known
	Seq    uint64 // the first event that cannot be read, 0 when not known
	Cause  string // what is wrong there
}

func (e *CorruptError) Error() string {
	var b strings.Builder
	b.WriteString("ledger corrupt")
	if e.Seq > 0 {
		fmt.Fprintf(&b, " at event %d", e.Seq)
	}
	b.WriteString(": " + e.File)
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " byte %d", e.Offset)
	}
	b.WriteString(": " + e.Cause)
	return b.String()
}

func (e *CorruptError) Unwrap() error { return store.ErrCorrupt }
