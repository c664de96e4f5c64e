// Package deptest checks, from a package's own tests, what that package
// depends on, through `go list` (in the style of tailscale's deptest). It
// owns no rules: each package's deps_test.go states its own.
package deptest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Deps returns pkg and every package it depends on, transitively. The test
// is skipped when the go command is not on PATH.
func Deps(t testing.TB, pkg string) []string {
	t.Helper()
	return list(t, pkg, "-deps", pkg)
}

// NonStandardDeps is Deps without the standard library.
func NonStandardDeps(t testing.TB, pkg string) []string {
	t.Helper()
	return list(t, pkg, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg)
}

// Imports returns the packages pkg imports directly.
func Imports(t testing.TB, pkg string) []string {
	t.Helper()
	return list(t, pkg, "-f", `{{join .Imports " "}}`, pkg)
}

func list(t testing.TB, pkg string, args ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	out, err := exec.Command(gobin, append([]string{"list"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.Fields(string(out))
}

// Require stops the test when deps lacks want: a listing without a
// dependency pkg is known to have is not the listing the checks expect.
func Require(t testing.TB, pkg string, deps []string, want string) {
	t.Helper()
	if !slices.Contains(deps, want) {
		t.Fatalf("the dependencies of %s lack %s; the listing is not what this test expects:\n%s", pkg, want, strings.Join(deps, "\n"))
	}
}

// Forbid fails the test for each dependency of pkg that is a forbidden
// package or lies under one.
func Forbid(t testing.TB, pkg string, deps []string, forbidden ...string) {
	t.Helper()
	for _, dep := range deps {
		for _, f := range forbidden {
			if Under(dep, f) {
				t.Errorf("%s depends on %s (forbidden: %s)", pkg, dep, f)
			}
		}
	}
}

// Only fails the test for each dependency of pkg, other than pkg itself,
// that is not in allowed.
func Only(t testing.TB, pkg string, deps []string, allowed ...string) {
	t.Helper()
	for _, dep := range deps {
		if dep != pkg && !slices.Contains(allowed, dep) {
			t.Errorf("%s depends on %s; allowed: %v", pkg, dep, allowed)
		}
	}
}

// WithDeps returns pkgs and every package beyond the standard library
// they reach, for Only: a package allowed gate is allowed what gate's
// own test lets gate reach (Unicode normalization), and no more.
func WithDeps(t testing.TB, pkgs ...string) []string {
	t.Helper()
	var out []string
	for _, p := range pkgs {
		for _, d := range NonStandardDeps(t, p) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// Under reports whether path is root or a package below it.
func Under(path, root string) bool { return path == root || strings.HasPrefix(path, root+"/") }
