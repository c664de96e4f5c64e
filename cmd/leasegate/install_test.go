package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallGitRefusesSharedAtOnce: `install git --shared` is refused as
// a usage error with nothing else said first: not the warning that no
// leasegate is in PATH, which --shared looks for and git never uses.
func TestInstallGitRefusesSharedAtOnce(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no leasegate in it
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	err = install(context.Background(), "install", []string{"git", "--shared"})
	os.Stderr = stderr
	w.Close()
	said, _ := io.ReadAll(r)
	if code, _ := classify(err); err == nil || code != exitUsage || !strings.Contains(err.Error(), "--shared is not supported") {
		t.Errorf("install git --shared = %v (exit %d), want the usage error", err, code)
	}
	if len(said) != 0 {
		t.Errorf("install git --shared said %q before refusing", said)
	}
}

// TestInstallWritesNothingWhenMCPFileIsRefused: an agent's MCP file that
// install cannot edit (not JSON, not TOML, read-only) is refused before
// the hooks are written, so the workspace is left as it was, not with
// hooks and no MCP server.
func TestInstallWritesNothingWhenMCPFileIsRefused(t *testing.T) {
	for _, tt := range []struct {
		agent, mcpFile, hooksFile, text string
		mode                            os.FileMode
	}{
		{"cursor", ".cursor/mcp.json", ".cursor/hooks.json", "{bad", 0o644},
		{"codex", ".codex/config.toml", ".codex/hooks.json", "model = \"x\n", 0o644},
		{"claude-code", ".mcp.json", ".claude/settings.json", "{}\n", 0o444},
	} {
		t.Run(tt.agent, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			t.Setenv("CODEX_HOME", t.TempDir())
			root := mustGitInit(t)
			mcp := filepath.Join(root, tt.mcpFile)
			if err := os.MkdirAll(filepath.Dir(mcp), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(mcp, []byte(tt.text), tt.mode); err != nil {
				t.Fatal(err)
			}
			err := install(context.Background(), "install", []string{"--workspace", root, "--shared", tt.agent})
			if err == nil || !strings.Contains(err.Error(), mcp) {
				t.Errorf("install %s = %v, want an error naming %s", tt.agent, err, mcp)
			}
			if _, err := os.Stat(filepath.Join(root, tt.hooksFile)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("install %s wrote its hooks to %s though it refused %s (stat: %v)", tt.agent, tt.hooksFile, tt.mcpFile, err)
			}
			if got, _ := os.ReadFile(mcp); string(got) != tt.text {
				t.Errorf("install %s changed %s to %q", tt.agent, tt.mcpFile, got)
			}
		})
	}
}

// TestInstallRefusesADirectoryItWouldNotGate: outside a git checkout,
// where only a leasegate.json makes a directory a workspace for the
// agent's hooks, install without one is a usage error that says so and
// writes nothing; with one it installs.
func TestInstallRefusesADirectoryItWouldNotGate(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	err = install(context.Background(), "install", []string{"--workspace", dir, "--shared", "claude-code"})
	if code, _ := classify(err); err == nil || code != exitUsage || !strings.Contains(err.Error(), "has no leasegate.json: the agent's hooks would gate nothing there") {
		t.Errorf("install outside a git checkout = %v (exit %d), want a usage error saying the hooks would gate nothing", err, code)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("install outside a git checkout wrote %v", entries)
	}
	if err := os.WriteFile(filepath.Join(dir, "leasegate.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := install(context.Background(), "install", []string{"--workspace", dir, "--shared", "--no-mcp", "claude-code"}); err != nil {
		t.Errorf("install with a leasegate.json there = %v", err)
	}
}

// TestInstallUsageNamesItsFlags: the usage line of install and uninstall
// names each flag of their own, --trust (codex) included.
func TestInstallUsageNamesItsFlags(t *testing.T) {
	for name, flags := range map[string][]string{
		"install":   {"--shared", "--user", "--no-mcp", "--trust"},
		"uninstall": {"--shared", "--user", "--no-mcp"},
	} {
		for _, f := range flags {
			if u := helpTexts[name].synopsis; !strings.Contains(u, f) {
				t.Errorf("%s usage %q does not name %s", name, u, f)
			}
		}
	}
}

// TestInstallCodexTrustWithoutCodexWritesNothing: `install codex --trust`
// with no codex program to record the trust through is refused before
// anything is written (it installed the hooks, then failed, leaving them
// untrusted: Codex skips them).
func TestInstallCodexTrustWithoutCodexWritesNothing(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	t.Setenv("LEASEGATE_CODEX", "no-such-codex-program")
	root := mustGitInit(t)
	err := install(context.Background(), "install", []string{"--workspace", root, "--shared", "codex", "--trust"})
	if err == nil || !strings.Contains(err.Error(), "nothing installed") || !strings.Contains(err.Error(), "no-such-codex-program") {
		t.Errorf("install codex --trust without codex = %v, want it refused naming the program, nothing installed", err)
	}
	for _, f := range []string{".codex/hooks.json", ".codex/config.toml", ".codex"} {
		if _, err := os.Stat(filepath.Join(root, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("install codex --trust without codex left %s (stat: %v)", f, err)
		}
	}
}

// TestInstallGitOutsideCheckout: install and uninstall git in a directory
// that is no git checkout are usage errors that say so and write nothing
// (they failed with exit 1 and git's "not a git repository ... .git");
// with GIT_DIR and GIT_WORK_TREE naming a bare repository and this
// directory as its work tree (a dotfiles repository), the refusal names
// them, since git, told by them, calls the directory a checkout.
func TestInstallGitOutsideCheckout(t *testing.T) {
	bare := filepath.Join(mustGitInit(t), ".git")
	for _, tt := range []struct {
		name    string
		gitEnv  bool
		wantEnv string
	}{
		{name: "plain directory"},
		{name: "GIT_DIR and GIT_WORK_TREE", gitEnv: true, wantEnv: "GIT_DIR=" + bare},
	} {
		for _, verb := range []string{"install", "uninstall"} {
			t.Run(tt.name+"/"+verb, func(t *testing.T) {
				dir, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				if tt.gitEnv {
					t.Setenv("GIT_DIR", bare)
					t.Setenv("GIT_WORK_TREE", dir)
				}
				err = install(context.Background(), verb, []string{"--workspace", dir, "git"})
				if code, _ := classify(err); err == nil || code != exitUsage || !strings.Contains(err.Error(), dir+" is not in a git checkout") {
					t.Errorf("%s git in %s = %v (exit %d), want the usage error saying it is not in a git checkout", verb, dir, err, code)
				}
				if err != nil && !strings.Contains(err.Error(), tt.wantEnv) {
					t.Errorf("%s git = %v, want it to name %q", verb, err, tt.wantEnv)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("%s git left %d entries in %s, want none", verb, len(entries), dir)
				}
			})
		}
	}
}
