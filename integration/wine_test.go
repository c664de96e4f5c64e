package integration_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// wineExcluded are the packages whose Windows tests are not run under Wine,
// and why: what they test needs something Wine 8 or this machine lacks.
var wineExcluded = map[string]string{
	"integration":     "end-to-end tests of the Linux binary, with git and the coordinator's socket",
	"api":             "its tests serve over AF_UNIX, which Wine 8 lacks (socket: WSAEAFNOSUPPORT, winapi error #10047)",
	"hooks":           "every test runs a coordinator on AF_UNIX, real git and a leasegate it builds with go",
	"mcp":             "its tests run a coordinator on AF_UNIX in a git checkout",
	"watch":           "every test makes a git checkout, and there is no git.exe under Wine",
	"internal/gitrun": "it runs git, and there is no git.exe under Wine",
}

// wineSkips are the tests of the packages that run under Wine which are
// skipped there, with the reason. The names are anchored regular
// expressions, one go test -skip for every package.
var wineSkips = []struct{ tests, why string }{
	{"TestCloseKeepsAReplacedSocket", "AF_UNIX: Wine 8 lacks it (socket: WSAEAFNOSUPPORT)"},
	{"TestAcquireRefusesWhatNoWorkerMayWrite|TestInvalidConfigIsAUsageError|TestClusterEnvErrorsAreUsageErrors|" +
		"TestNoWorkTreeIsAUsageError|TestInstallWritesNothingWhenMCPFileIsRefused|TestIgnoreChangesByOthersReachTheRule|" +
		"TestCheckIgnoreProcessLifetime|TestGitUnavailableGatesEverything|TestPathsGitCannotCheck|TestGitFlushesPerPathOnPipe|" +
		"TestClassify.*|TestLocate.*|TestClusterFromEnv.*|TestDiscoverAgreesWithGit|TestRuleFollowsConfig|TestGateGitIgnored|" +
		"TestInvalidate|TestDescribe|TestServeLock|TestAnchor|TestStateInvisibleToGitStatus|TestEnsureStateDir.*|" +
		"TestAdminToken.*|TestFind.*|TestAffectsIgnore.*|TestNamedLedgerJoinTakenElsewhere", "they make a git checkout, and there is no git.exe under Wine"},
	{"TestPathRulesDotDot|TestSpelling|TestArgPath|TestResolveExisting|TestRel|TestMutateThroughSymlink|TestWriteThroughOutsideLinkGated",
		"they make symlinks: Wine 8's CreateSymbolicLinkW is a stub that reports success and makes none (fixme:file:CreateSymbolicLinkW ... stub)"},
	{"TestCallerActsOnlyAsItsOwner|TestAncestryOfAChild|TestCallerOutOfDescriptorsIsAskedAgain", "they look at the test's parent process, and a Windows process that Wine starts from Linux has parent pid 0"},
	{"TestAskerGoneWithdrawsContention", "it wants the asker's exit seen at once, which takes a pidfd (Linux); elsewhere the asker is judged by pid and start time, and its connection accepted at the synctest bubble's time (2000) seems to predate its real start"},
}

// TestWindowsBuildUnderWine runs the Windows test binaries of every package
// (but wineExcluded, and wineSkips) under the Wine named by
// LEASEGATE_TEST_WINE (a wine64, which .ci/run installs with the MinGW
// compiler the runtime's shim needs). With the variable set, a Wine that
// does not run fails the test rather than skipping it.
func TestWindowsBuildUnderWine(t *testing.T) {
	wine := os.Getenv("LEASEGATE_TEST_WINE")
	if wine == "" {
		t.Skip("LEASEGATE_TEST_WINE names no wine64 (.ci/run installs Debian's wine64 and sets it)")
	}
	prefix := winePrefix(t, wine)
	overlay := deleteatOverlay(t)
	t.Run("tests", func(t *testing.T) { wineTests(t, wine, prefix, overlay) })
	t.Run("cli", func(t *testing.T) { wineCLI(t, wine, prefix, overlay) })
}

// wineTests runs the packages' Windows test binaries under wine.
func wineTests(t *testing.T, wine string, prefix []string, overlay string) {
	args := []string{"test", "-exec", wine, "-overlay", overlay, "-vet=off", "-count=1", "-timeout", "5m", "-skip", wineSkipPattern()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(args, windowsTestPackages(t)...)...)
	cmd.Dir, cmd.Env = "..", slices.Concat(withoutTestPrograms(os.Environ()), windowsTarget, prefix)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Windows tests under %s: %v\n%s", wine, err, out)
	}
	t.Logf("the Windows tests under %s:\n%s", wine, out)
	for pkg, why := range wineExcluded {
		t.Logf("not run under Wine: %s: %s", pkg, why)
	}
	for _, s := range wineSkips {
		t.Logf("skipped under Wine: %s: %s", s.tests, s.why)
	}
}

// withoutTestPrograms is env without the LEASEGATE_TEST_ variables, which
// name Linux programs (etcd, the agent CLIs) that a Windows test binary
// cannot start: with one set, a test that needs it fails rather than
// skips.
func withoutTestPrograms(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "LEASEGATE_TEST_") })
}

// windowsTarget is the environment of a go command that builds for
// Windows.
var windowsTarget = []string{"GOOS=windows", "GOARCH=amd64"}

// winePrefix makes a Wine prefix of the test's own, with the runtime's
// bcryptprimitives.dll built from testdata/wine, and returns the
// variables that run Windows programs in it. The prefix's wineserver is
// stopped when the test ends.
func winePrefix(t *testing.T, wine string) []string {
	t.Helper()
	dir := t.TempDir()
	prefix := []string{"WINEPREFIX=" + dir, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml="}
	env := append(os.Environ(), prefix...)
	t.Cleanup(func() {
		kill := exec.Command(filepath.Join(filepath.Dir(wine), "wineserver"), "-k")
		kill.Env = env
		kill.Run() // no wineserver left to stop is fine
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	boot := exec.CommandContext(ctx, wine, "wineboot", "-i")
	boot.Env = env
	if out, err := boot.CombinedOutput(); err != nil {
		t.Fatalf("%s wineboot -i: %v\n%s", wine, err, out)
	}
	system32 := filepath.Join(dir, "drive_c", "windows", "system32")
	if _, err := os.Stat(system32); err != nil {
		t.Fatalf("wineboot made no system32: %v", err)
	}
	shim := exec.Command("x86_64-w64-mingw32-gcc", "-shared", "-O2", "-s",
		"-o", filepath.Join(system32, "bcryptprimitives.dll"),
		filepath.Join("testdata", "wine", "processprng.c"), filepath.Join("testdata", "wine", "processprng.def"), "-ladvapi32")
	if out, err := shim.CombinedOutput(); err != nil {
		t.Fatalf("build bcryptprimitives.dll (.ci/run installs gcc-mingw-w64-x86-64-win32): %v\n%s", err, out)
	}
	return prefix
}

// deleteatOverlay returns a go build overlay that lets os.RemoveAll work
// under Wine 8. Go removes a file with FileDispositionInformationEx and
// falls back to the older FileDispositionInformation on the statuses older
// Windows versions answer; Wine 8 answers another, STATUS_NOT_IMPLEMENTED
// (fixme:file:NtSetInformationFile Unsupported class (64)), which the
// overlay adds to those. Without it every test's TempDir cleanup fails.
func deleteatOverlay(t *testing.T) string {
	t.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	orig := filepath.Join(strings.TrimSpace(string(goroot)), "src", "internal", "syscall", "windows", "at_windows.go")
	src, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	const anchor = "\t\tSTATUS_NOT_SUPPORTED:"
	if strings.Count(string(src), anchor) != 1 {
		t.Fatalf("%s no longer has the fallback statuses this overlay extends (%q): see whether Go still needs it under Wine", orig, anchor)
	}
	dir := t.TempDir()
	patched := filepath.Join(dir, "at_windows.go")
	const notImplemented = "\t\tSTATUS_NOT_SUPPORTED, NTStatus(0xC0000002):" // STATUS_NOT_IMPLEMENTED
	if err := os.WriteFile(patched, []byte(strings.Replace(string(src), anchor, notImplemented, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {orig: patched}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(file, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// windowsTestPackages lists the module's packages that have tests on
// Windows, but those in wineExcluded.
func windowsTestPackages(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}", "./...")
	cmd.Dir, cmd.Env = "..", append(os.Environ(), windowsTarget...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/leasegate/leasegate"
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if _, ok := wineExcluded[strings.TrimPrefix(strings.TrimPrefix(p, module), "/")]; !ok {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

// wineSkipPattern is wineSkips as one go test -skip pattern of top-level
// test names.
func wineSkipPattern() string {
	var names []string
	for _, s := range wineSkips {
		names = append(names, s.tests)
	}
	pattern := "^(" + strings.Join(names, "|") + ")$"
	regexp.MustCompile(pattern)
	return pattern
}
