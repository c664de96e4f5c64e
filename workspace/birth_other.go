//go:build !linux

package workspace

import (
	"time"

	"github.com/leasegate/leasegate/gate"
)

// bornAfter answers false: birth times are read on Linux only (statx), so
// elsewhere an identity a lease records is never taken for another file's.
func bornAfter(string, gate.File, time.Time) bool { return false }
