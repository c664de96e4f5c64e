package workspace_test

import (
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

func TestUnder(t *testing.T) {
	tests := []struct {
		base, abs string
		rel       string
		inside    bool
	}{
		{base: "/ws", abs: "/ws", rel: ".", inside: true},
		{base: "/ws", abs: "/ws/a/b", rel: "a/b", inside: true},
		{base: "/ws", abs: "/wsx/a"},
		{base: "/ws", abs: "/w"},
		{base: "/ws/a", abs: "/ws"},
		{base: "/", abs: "/a", rel: "a", inside: true},
		{base: "/", abs: "/", rel: ".", inside: true},
		{base: "", abs: "/a"},
	}
	for _, tt := range tests {
		rel, inside := workspace.Under(tt.base, tt.abs)
		if rel != tt.rel || inside != tt.inside {
			t.Errorf("Under(%q, %q) = %q, %v, want %q, %v", tt.base, tt.abs, rel, inside, tt.rel, tt.inside)
		}
	}
}
