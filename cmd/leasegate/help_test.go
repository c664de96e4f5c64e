package main

import (
	"strings"
	"testing"
)

// TestSynopsisNamesEveryFlag: a command's synopsis names each flag of its
// own, or says it takes [flags] (listed below it in its help), so that no
// flag a command takes goes unmentioned where a reader looks first.
func TestSynopsisNamesEveryFlag(t *testing.T) {
	for name, flags := range commandFlags() {
		h, ok := helpTexts[name]
		if !ok {
			t.Errorf("%s has no help text", name)
			continue
		}
		if strings.Contains(h.synopsis, "[flags]") {
			continue
		}
		for _, f := range flags {
			if _, global := globalFlags[strings.TrimPrefix(f, "--")]; !global && !strings.Contains(h.synopsis, f) {
				t.Errorf("the synopsis of %s (%q) does not name its flag %s", name, h.synopsis, f)
			}
		}
	}
}
