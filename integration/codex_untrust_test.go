package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCodexUninstallRemovesTrust drives the real Codex CLI's app server:
// `uninstall codex` removes exactly the trust entries `install codex
// --trust` wrote to Codex's config and says which, so the config comes
// back byte for byte; a trust the user gave before (the project, another
// project) stays. When Codex cannot be asked, uninstall fails naming what
// remains, doctor says so too, and a later uninstall removes it; doctor
// then finds Codex not installed and nothing left. An entry the user
// changed after install wrote it is left, and uninstall says so.
func TestCodexUninstallRemovesTrust(t *testing.T) {
	codex := codexProgram(t)
	for _, tc := range []struct {
		name           string
		projectTrusted bool // by the user, before install
		codexMissing   bool // at the first uninstall
		userEdit       bool // the user trusts one hook again, by another hash
	}{
		{name: "untrusted project"},
		{name: "project trusted by the user", projectTrusted: true},
		{name: "codex missing at first", codexMissing: true},
		{name: "hook trust changed by the user", userEdit: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, map[string]string{"f.txt": "old\n"})
			env := codexEnv(t, r, codex, newResponsesMock(t))
			cfgFile := filepath.Join(envValue(env, "CODEX_HOME"), "config.toml")
			mine := "\n[projects." + strconv.Quote(filepath.Join(t.TempDir(), "other")) + "]\ntrust_level = \"trusted\"\n"
			if tc.projectTrusted {
				mine += "\n[projects." + strconv.Quote(r.dir) + "]\ntrust_level = \"trusted\"\n"
			}
			appendFile(t, cfgFile, mine)
			before := readFile(t, cfgFile)
			lg := func(extra string, args ...string) (string, int) {
				t.Helper()
				if extra != "" {
					return lgIn(t, r.dir, append(append([]string(nil), env...), extra), args...)
				}
				return lgIn(t, r.dir, env, args...)
			}

			out, code := lg("", "install", "codex", "--trust")
			if code != 0 || !strings.Contains(out, "trusts the project and all 5 hooks: they run") {
				t.Fatalf("install codex --trust: exit %d:\n%s", code, out)
			}
			if readFile(t, cfgFile) == before {
				t.Fatalf("install codex --trust wrote nothing to %s", cfgFile)
			}
			removedHooks := 5
			if tc.userEdit {
				cfg := readFile(t, cfgFile)
				i := strings.Index(cfg, `trusted_hash = "`)
				j := strings.IndexByte(cfg[i+len(`trusted_hash = "`):], '"')
				edited := cfg[:i] + `trusted_hash = "sha256:mine` + cfg[i+len(`trusted_hash = "`)+j:]
				if err := os.WriteFile(cfgFile, []byte(edited), 0o600); err != nil {
					t.Fatal(err)
				}
				removedHooks = 4
			}
			if tc.codexMissing {
				out, code = lg("LEASEGATE_CODEX="+filepath.Join(t.TempDir(), "no-codex"), "uninstall", "codex")
				if code != 1 || !strings.Contains(out, "trusted_hash") || !strings.Contains(out, cfgFile) {
					t.Fatalf("uninstall codex without codex: exit %d, want 1 naming the trust left in %s:\n%s", code, cfgFile, out)
				}
				out, code = lg("", "doctor")
				if code != 1 || !strings.Contains(out, "`uninstall codex` has not removed") {
					t.Fatalf("doctor after an uninstall that left the trust: exit %d, want it named:\n%s", code, out)
				}
			}

			out, code = lg("", "uninstall", "codex")
			if code != 0 || strings.Count(out, "removed the trust of leasegate's Codex hook") != removedHooks {
				t.Fatalf("uninstall codex: exit %d, want %d hooks' trust removed:\n%s", code, removedHooks, out)
			}
			if tc.userEdit {
				if got := readFile(t, cfgFile); !strings.Contains(out, `changed after`) || strings.Count(got, "trusted_hash") != 1 || !strings.Contains(got, "sha256:mine") {
					t.Fatalf("uninstall codex after the user trusted a hook again: want that entry left and said so:\n%s\n%s:\n%s", out, cfgFile, got)
				}
				return
			}
			if removed := strings.Contains(out, "removed the trust of the project"); removed == tc.projectTrusted {
				t.Errorf("uninstall codex removed the project's trust: %v, want %v (the user trusted it: %v):\n%s", removed, !tc.projectTrusted, tc.projectTrusted, out)
			}
			if got := readFile(t, cfgFile); got != before {
				t.Fatalf("%s after uninstall:\n%s\nwant it as before install:\n%s", cfgFile, got, before)
			}
			out, _ = lg("", "doctor")
			if !strings.Contains(out, "codex: not installed") || strings.Contains(out, "install codex --trust") {
				t.Fatalf("doctor after uninstall codex, want codex not installed and no trust left:\n%s", out)
			}
			if out, code = lg("", "uninstall", "codex"); code != 0 || strings.Contains(out, "removed the trust") {
				t.Fatalf("uninstall codex again: exit %d, want nothing said of trust:\n%s", code, out)
			}
		})
	}
}

// lgIn runs the CLI in dir with the environment env and returns its
// output, stdout and stderr together, and its exit code.
func lgIn(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	return lgProgram(t, bin, dir, env, args...)
}

// lgFunc is lgIn in dir with env, as a function of the arguments.
func lgFunc(t *testing.T, dir string, env []string) func(args ...string) (string, int) {
	return func(args ...string) (string, int) {
		t.Helper()
		return lgIn(t, dir, env, args...)
	}
}

// lgProgram runs the leasegate at prog in dir with env, and returns its
// combined output and exit status.
func lgProgram(t *testing.T, prog, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", prog, args, err)
	}
	return string(out), 0
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
