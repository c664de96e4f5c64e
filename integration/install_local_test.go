package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallLocalByDefault: install claude-code writes this binary's
// absolute path to the git-ignored .claude/settings.local.json; --shared
// writes `leasegate` from PATH to .claude/settings.json; uninstall removes
// what install added, the directory it created with it.
func TestInstallLocalByDefault(t *testing.T) {
	r := newCheckout(t, nil)
	r.env = append(r.env, "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	local, shared := filepath.Join(".claude", "settings.local.json"), filepath.Join(".claude", "settings.json")
	out := r.mustLG("install", "claude-code")
	if got := r.read(local); !strings.Contains(got, `"command": "`+bin+`"`) {
		t.Errorf("install claude-code: %s lacks the absolute binary path %s:\n%s", local, bin, got)
	}
	// Git does not ignore the file install made (Claude Code ignores the
	// one it makes itself): install says so, and how to ignore it.
	if !strings.Contains(out, "note: git does not ignore "+local) {
		t.Errorf("install claude-code did not say git would commit %s:\n%s", local, out)
	}
	r.mustLG("uninstall", "claude-code")
	exclude := filepath.Join(r.dir, ".git", "info", "exclude")
	if err := os.WriteFile(exclude, []byte(".claude/settings.local.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := r.mustLG("install", "claude-code", "--no-mcp"); strings.Contains(out, "does not ignore") {
		t.Errorf("install claude-code with the file ignored still says git does not ignore it:\n%s", out)
	}
	if err := os.Remove(exclude); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, shared)); !os.IsNotExist(err) {
		t.Errorf("install claude-code touched the shared %s (stat: %v)", shared, err)
	}
	r.mustLG("uninstall", "claude-code")
	if _, err := os.Stat(filepath.Join(r.dir, ".claude")); !os.IsNotExist(err) {
		t.Errorf("uninstall left the .claude directory install created (stat: %v)", err)
	}

	r.mustLG("install", "claude-code", "--shared")
	got := r.read(shared)
	if !strings.Contains(got, `"command": "leasegate"`) || strings.Contains(got, bin) {
		t.Errorf("install claude-code --shared: %s should name leasegate from PATH:\n%s", shared, got)
	}
	if out := r.mustLG("install", "claude-code"); !strings.Contains(out, "also in "+filepath.Join(r.dir, shared)) {
		t.Errorf("install claude-code with leasegate's hooks in the shared file does not say the agent runs both:\n%s", out)
	}
	r.mustLG("uninstall", "claude-code")
	r.mustLG("uninstall", "claude-code", "--shared")
	if _, err := os.Stat(filepath.Join(r.dir, ".claude")); !os.IsNotExist(err) {
		t.Errorf("uninstall --shared left the .claude directory install created (stat: %v)", err)
	}

	if err := os.Mkdir(filepath.Join(r.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.mustLG("install", "claude-code")
	r.mustLG("uninstall", "claude-code")
	if _, err := os.Stat(filepath.Join(r.dir, ".claude")); err != nil {
		t.Errorf("uninstall removed a .claude directory the user had made: %v", err)
	}
}

// TestInstallRefusesGoRunBinary: an install from a binary in a go-build
// directory (what `go run` runs) is refused, naming how to install a
// lasting binary, and writes nothing.
func TestInstallRefusesGoRunBinary(t *testing.T) {
	r := newCheckout(t, nil)
	exe := filepath.Join(t.TempDir(), "go-build123456", "b001", "exe", "leasegate")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "install", "claude-code")
	cmd.Dir, cmd.Env = r.dir, append(r.env, "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "go install ./cmd/leasegate") {
		t.Errorf("install from a go-build directory: %v, want exit 2 naming `go install ./cmd/leasegate`:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".claude")); !os.IsNotExist(err) {
		t.Errorf("a refused install wrote .claude (stat: %v)", err)
	}
}
