package coordinator_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestPathReasonsAgree: a path CleanPath refuses has one reason code at
// every entry that takes a path: an absolute or escaping path is
// PATH_OUTSIDE_WORKSPACE, a malformed one INPUT_SCHEMA_INVALID.
func TestPathReasonsAgree(t *testing.T) {
	paths := []struct {
		path string
		want error
	}{
		{path: "/etc/passwd", want: gate.ErrOutside},
		{path: "../outside.txt", want: gate.ErrOutside},
		{path: "a\x00b", want: gate.ErrInputInvalid},
		{path: "a/..", want: gate.ErrInputInvalid},
	}
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		entries := []struct {
			name string
			call func(p string) error
		}{
			{name: "Mutate", call: func(p string) error {
				_, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{p}})
				return err
			}},
			{name: "Leases", call: func(p string) error { _, err := e.c.Leases(e.ctx, p); return err }},
			{name: "ReportUngated", call: func(p string) error {
				return e.c.ReportUngated(e.ctx, leasegate.UngatedWrite{Path: p, Op: "write"})
			}},
		}
		for _, en := range entries {
			for _, tt := range paths {
				err := en.call(tt.path)
				var de *gate.DeniedError
				if !errors.As(err, &de) || !errors.Is(err, tt.want) {
					t.Errorf("%s(%q) = %v, want a denial %v", en.name, tt.path, err, tt.want)
				}
			}
		}
	})
}
