package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/workspace"
)

// TestStartReport: what a coordinator says on its pipe is what its
// starter reads: ready, a cause, another coordinator, nothing at all.
func TestStartReport(t *testing.T) {
	tests := []struct {
		name  string
		say   func(r *reporter)
		check func(rep startReport, err error) bool
	}{
		{name: "ready", say: func(r *reporter) { r.ready() },
			check: func(rep startReport, err error) bool { return err == nil && rep.Ready && rep.PID == os.Getpid() }},
		{name: "cause", say: func(r *reporter) { r.done(errors.New("open ledger x: invalid database")) },
			check: func(rep startReport, err error) bool {
				return err == nil && rep.Error == "open ledger x: invalid database"
			}},
		{name: "another coordinator", say: func(r *reporter) { r.done(&workspace.ServingError{PID: 42}) },
			check: func(rep startReport, err error) bool { return err == nil && rep.Serving && rep.ServingPID == 42 }},
		{name: "exited without a word", say: func(r *reporter) { r.f.Close(); r.f = nil },
			check: func(rep startReport, err error) bool { return err == nil && rep == startReport{} }},
		{name: "said only once", say: func(r *reporter) { r.ready(); r.done(errors.New("late")) },
			check: func(rep startReport, err error) bool { return err == nil && rep.Ready && rep.Error == "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, pw, err := startPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			tt.say(&reporter{f: pw})
			rep, err := readStartReport(pr, 5*time.Second)
			if !tt.check(rep, err) {
				t.Errorf("read %+v, %v", rep, err)
			}
		})
	}
}

// TestStartReportSilence: a coordinator that says nothing is reported
// as such once the wait is over.
func TestStartReportSilence(t *testing.T) {
	pr, pw, err := startPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if _, err := readStartReport(pr, 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "said nothing within") {
		t.Fatalf("readStartReport on a silent pipe = %v, want said nothing", err)
	}
}

// TestStartLogNamedOnlyWhenWritten: a start failure names serve.log only
// when the coordinator wrote to it since its start; a log that did not
// grow (a full disk) holds nothing of the failure, even if it holds
// earlier starts' lines.
func TestStartLogNamedOnlyWhenWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serve.log")
	if err := os.WriteFile(path, []byte("an earlier start\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := startLog{path: path, f: f, size: fileSize(f)}
	if got := l.see(); got != "" {
		t.Errorf("see() of a log nothing was written to = %q, want none", got)
	}
	if _, err := f.WriteString("open ledger: no space left on device\n"); err != nil {
		t.Fatal(err)
	}
	if got, want := l.see(), "; see "+path; got != want {
		t.Errorf("see() of a log written to = %q, want %q", got, want)
	}
}
