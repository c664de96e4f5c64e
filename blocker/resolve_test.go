package blocker_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
)

func TestResolveTransitions(t *testing.T) {
	at := retried.Add(time.Hour).In(time.FixedZone("CET", 3600))
	tests := []struct {
		name   string
		from   blocker.Status
		action blocker.Action
		want   blocker.Status // when err is nil
		err    error
	}{
		{name: "open retry", from: blocker.StatusOpen, action: blocker.ActionRetry, want: blocker.StatusRetried},
		{name: "open deny", from: blocker.StatusOpen, action: blocker.ActionDeny, want: blocker.StatusDenied},
		{name: "open abort", from: blocker.StatusOpen, action: blocker.ActionAbort, want: blocker.StatusAborted},
		{name: "open unknown action", from: blocker.StatusOpen, action: "skip", err: blocker.ErrUnknownAction},
		{name: "open empty action", from: blocker.StatusOpen, action: "", err: blocker.ErrUnknownAction},
		{name: "retried retry", from: blocker.StatusRetried, action: blocker.ActionRetry, err: blocker.ErrNotOpen},
		{name: "retried deny", from: blocker.StatusRetried, action: blocker.ActionDeny, err: blocker.ErrNotOpen},
		{name: "retried abort", from: blocker.StatusRetried, action: blocker.ActionAbort, err: blocker.ErrNotOpen},
		{name: "denied retry", from: blocker.StatusDenied, action: blocker.ActionRetry, err: blocker.ErrNotOpen},
		{name: "denied abort", from: blocker.StatusDenied, action: blocker.ActionAbort, err: blocker.ErrNotOpen},
		{name: "aborted retry", from: blocker.StatusAborted, action: blocker.ActionRetry, err: blocker.ErrNotOpen},
		{name: "aborted deny", from: blocker.StatusAborted, action: blocker.ActionDeny, err: blocker.ErrNotOpen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report()
			r.Status = tt.from
			before := r
			err := r.Resolve(tt.action, "carol", at, "bob is on lunch")
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Resolve(%q) from %s = %v, want %v", tt.action, tt.from, err, tt.err)
				}
				if !reflect.DeepEqual(r, before) {
					t.Errorf("Resolve(%q) from %s failed but changed the report to %+v", tt.action, tt.from, r)
				}
				return
			}
			if err != nil || r.Status != tt.want {
				t.Fatalf("Resolve(%q) from %s = %v, status %s; want nil, %s", tt.action, tt.from, err, r.Status, tt.want)
			}
			want := blocker.Resolution{Action: tt.action, By: "carol", At: at.UTC(), Note: "bob is on lunch"}
			if r.Resolution == nil || *r.Resolution != want {
				t.Errorf("Resolve(%q).Resolution = %+v, want %+v", tt.action, r.Resolution, want)
			}
		})
	}
}
