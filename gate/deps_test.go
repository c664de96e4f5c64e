package gate_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const gatePkg = "github.com/leasegate/leasegate/gate"

// forbiddenDeps may not be reached by gate even transitively: networking,
// processes, signals, users, databases, plugins, cgo, and randomness
// (callers fill in lease ids).
var forbiddenDeps = []string{
	"net", "net/http", "net/rpc", "net/smtp", "net/url", "crypto/tls",
	"os/exec", "os/signal", "os/user", "plugin", "runtime/cgo",
	"database/sql", "log/syslog",
	"math/rand", "math/rand/v2", "crypto/rand",
}

// forbiddenImports may not be imported by gate itself. fmt already pulls
// os and syscall in transitively, so these are checked on gate's own
// imports: file system, process and logging access.
var forbiddenImports = []string{
	"os", "syscall", "io/fs", "io/ioutil", "path/filepath", "log", "log/slog",
	"unsafe", "runtime", "context", "sync",
}

// allowedOutside are the only packages outside the standard library gate
// may reach: Unicode normalization, which FoldNormalization compares names
// by (the way macOS's volumes do), and the one package it builds on. They
// are pure functions over tables compiled in, kept by the Go team under
// the same compatibility terms as the standard library; they do no I/O
// and reach none of forbiddenDeps (checked below like every dependency).
// Writing normalization ourselves would mean copying Unicode's tables.
var allowedOutside = []string{"golang.org/x/text/unicode/norm", "golang.org/x/text/transform"}

// clockReads are the time functions that read the clock or wait on it;
// gate takes one now per decision from its caller.
var clockReads = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTicker", "NewTimer"}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	out, err := exec.Command(gobin, append([]string{"list"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	return strings.Fields(string(out))
}

// TestDependencies fails when gate gains a dependency outside the standard
// library (but allowedOutside) or an I/O package a pure decision engine
// has no use for.
func TestDependencies(t *testing.T) {
	deps := goList(t, "-deps", "-f", "{{.ImportPath}}:{{.Standard}}", gatePkg)
	for _, d := range deps {
		path, std, _ := strings.Cut(d, ":")
		if path == gatePkg {
			continue
		}
		if first, _, _ := strings.Cut(path, "/"); (strings.Contains(first, ".") || std != "true") && !contains(allowedOutside, path) {
			t.Errorf("gate depends on %s, outside the standard library", path)
		}
		for _, f := range forbiddenDeps {
			if path == f {
				t.Errorf("gate depends on %s (forbidden, even transitively)", path)
			}
		}
	}
	for _, imp := range goList(t, "-f", `{{join .Imports " "}}`, gatePkg) {
		for _, f := range forbiddenImports {
			if imp == f {
				t.Errorf("gate imports %s (forbidden)", imp)
			}
		}
	}
}

// TestNoClockReads fails when a non-test file of gate reads the clock.
func TestNoClockReads(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		timeName := importName(f, "time")
		if timeName == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == timeName && contains(clockReads, sel.Sel.Name) {
				t.Errorf("%s: time.%s reads the clock; take now from the caller", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// importName is the name under which f imports path, or "".
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return filepath.Base(path)
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
