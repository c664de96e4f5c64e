package liveness_test

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// TestDescriptorsShare: a process watched once the share of pidfds is held
// has none and is judged by its pid and start time, the evidence naming
// the share and the open-files limit; a closed watch gives its slot back.
func TestDescriptorsShare(t *testing.T) {
	d := liveness.NewDescriptors(1, 132, nil)
	var procs []liveness.ProcID
	for range 2 {
		cmd := MustStart(t, false, "sleep", "30")
		start, err := liveness.ProcessStart(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, liveness.ProcID{PID: cmd.Process.Pid, StartTime: start})
	}
	first, err := d.Watch(procs[0], func() {})
	if err != nil {
		t.Fatal(err)
	}
	if !first.HasPidfd() {
		t.Skip("no pidfd on this kernel")
	}
	second, err := d.Watch(procs[1], func() {})
	if err != nil || second.HasPidfd() {
		t.Fatalf("Watch(second, share of 1 held) = %v, has pidfd %t; want one without", err, second.HasPidfd())
	}
	defer second.Close()
	subj := liveness.Subject{Owner: gate.Owner{Name: "o", Host: here, PID: procs[1].PID, StartTime: procs[1].StartTime}, Process: second}
	want := "pid + start time (no pidfd: the coordinator holds its share of 1 pidfds under the open-files limit 132): pid " + strconv.Itoa(procs[1].PID)
	if v := MustEvaluator(t).Evaluate(subj, now); v.Status != gate.Alive || !hasEvidence(v, want) {
		t.Fatalf("Evaluate(beyond the share) = %+v, want alive with %q", v, want)
	}
	first.Close()
	third, err := d.Watch(procs[1], func() {})
	if err != nil || !third.HasPidfd() {
		t.Fatalf("Watch after the first closed = %v, has pidfd %t; want the slot given back", err, third.HasPidfd())
	}
	third.Close()
}

// TestDescriptorsWarnOnEMFILE: an open that failed for want of a
// descriptor (a process lookup's, here) is recorded once, naming RLIMIT_NOFILE and its value; other
// errors are not.
func TestDescriptorsWarnOnEMFILE(t *testing.T) {
	d := liveness.NewDescriptors(-1, 256, nil)
	d.Note(fmt.Errorf("pid 7: %w", fs.ErrPermission))
	if w := d.Warning(); w != "" {
		t.Fatalf("Warning() after EACCES = %q, want none", w)
	}
	e := MustEvaluator(t, func(c *liveness.Config) { c.Descriptors = d })
	liveness.SetLookup(e, func(int) (int64, string, error) {
		return 0, "", &fs.PathError{Op: "open", Path: "/proc/7/stat", Err: syscall.EMFILE}
	})
	if v := e.Evaluate(liveness.Subject{Owner: gate.Owner{Name: "o", Host: here, PID: 7}}, now); v.Status != gate.Unknown {
		t.Fatalf("Evaluate(lookup failed with EMFILE) = %+v, want unknown", v)
	}
	d.Note(fmt.Errorf("pid 8: %w", &fs.PathError{Op: "open", Path: "/proc/8/stat", Err: syscall.EMFILE}))
	w := d.Warning()
	if !strings.Contains(w, "RLIMIT_NOFILE 256") || !strings.Contains(w, "/proc/7/stat") {
		t.Fatalf("Warning() after EMFILE = %q, want RLIMIT_NOFILE 256 and the first failed open", w)
	}
}
