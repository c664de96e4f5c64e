package bolt

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestJournalWriteThrough: on Linux a durable ledger's journal segments
// are opened O_DSYNC, so each commit's single write is durable on its own;
// a NoSync ledger's are not.
func TestJournalWriteThrough(t *testing.T) {
	for _, tc := range []struct {
		name   string
		noSync bool
		want   bool
	}{
		{name: "durable", noSync: false, want: true},
		{name: "no-sync", noSync: true, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := openJournal(filepath.Join(t.TempDir(), "ledger.db"), 4096, tc.noSync)
			if err != nil {
				t.Fatal(err)
			}
			defer j.close()
			for i, f := range j.segs {
				fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
				if err != nil {
					t.Fatal(err)
				}
				if got := fl&unix.O_DSYNC != 0; got != tc.want {
					t.Errorf("segment %d opened O_DSYNC = %v, want %v", i, got, tc.want)
				}
			}
			if err := j.writeAt(0, 0, []byte("record")); err != nil {
				t.Errorf("writeAt = %v, want nil", err)
			}
		})
	}
}
