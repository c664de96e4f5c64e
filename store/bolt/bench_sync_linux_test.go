package bolt_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkFdatasync is the floor of any durable commit on this machine:
// append 100 bytes to a file and fdatasync it.
func BenchmarkFdatasync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 100)
	fd := int(f.Fd())
	b.ResetTimer()
	for range b.N {
		if _, err := f.Write(buf); err != nil {
			b.Fatal(err)
		}
		if err := syscall.Fdatasync(fd); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "syncs/s")
}
