package integration_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// deepScript goes 20 directories of 200 bytes down, one in the other,
// making each with mkdir=mkdir (chdir is not gated): about 4,060 bytes
// below the root, where a 200-byte name is over 4096 bytes.
const deepScript = `d=$(printf 'd%0199d' 0); n=$(printf 'n%0199d' 0); for i in $(seq 1 20); do $mkdir $d; cd $d || exit 9; done; `

// TestDeepPathRefused: a file more than 4096 bytes below the workspace
// root, reached by cd step by step, is no path a lease can name: under
// the seccomp gate its mkdir fails with ENAMETOOLONG and run says why
// (it was taken for a path outside the workspace and let through
// ungated, past any lease on the directories above it), and a write from
// a working directory deeper than PATH_MAX, which /proc cannot name, is
// refused and said too.
func TestDeepPathRefused(t *testing.T) {
	r := newRepo(t, nil)
	// The tree is made without the gate, one level deeper than PATH_MAX.
	if out, err := exec.Command("bash", "-c", "mkdir=mkdir; cd "+r.dir+"; "+deepScript+"mkdir $d").CombinedOutput(); err != nil {
		t.Fatalf("making the deep tree: %v, %s", err, out)
	}
	w := r.start("run", "--gate", "seccomp", "--as", "deep", "--", "bash", "-c", "mkdir=:; "+deepScript+
		`{ mkdir $n; } 2>/dev/null && echo made || echo refused-mkdir; cd $d && { printf x > f; } 2>/dev/null && echo written || echo refused-write`)
	w.wait(t, 60*time.Second)
	out := w.out.String()
	for _, want := range []string{"refused-mkdir", "no lease can name it (its path from the workspace root is", "refused-write", "over 4096 bytes (PATH_MAX)"} {
		if !strings.Contains(out, want) {
			t.Errorf("run of writes 4,200 bytes deep lacks %q:\n%s", want, out)
		}
	}
}
