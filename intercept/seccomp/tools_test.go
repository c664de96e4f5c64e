//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/intercept"
)

// want is one mutation a tool must produce. Paths are relative to the
// work dir, "{out}/" to a directory outside it; they may be globs.
type want struct {
	op    intercept.Op
	paths []string
}

// TestTools runs real tools under the gate and checks that each mutation
// they make is reported with the file it really affects.
func TestTools(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		script string
		want   []want
	}{
		{name: "redirect creates", script: "echo hi > new",
			want: []want{{intercept.OpCreate, []string{"new"}}}},
		{name: "redirect truncates", files: map[string]string{"f": "old"}, script: "echo hi > f",
			want: []want{{intercept.OpTruncate, []string{"f"}}}},
		{name: "append", files: map[string]string{"f": "old"}, script: "echo hi >> f",
			want: []want{{intercept.OpOpenWrite, []string{"f"}}}},
		{name: "sed -i", files: map[string]string{"f": "a\n"}, script: "sed -i s/a/b/ f",
			want: []want{{intercept.OpCreate, []string{"sed*"}}, {intercept.OpRename, []string{"sed*", "f"}}}},
		{name: "cp", files: map[string]string{"a": "x"}, script: "cp a c",
			want: []want{{intercept.OpCreate, []string{"c"}}}},
		{name: "mv", files: map[string]string{"a": "x"}, script: "mv a m",
			want: []want{{intercept.OpRename, []string{"a", "m"}}}},
		{name: "rm", files: map[string]string{"a": "x"}, script: "rm a",
			want: []want{{intercept.OpUnlink, []string{"a"}}}},
		{name: "truncate", files: map[string]string{"a": "x"}, script: "truncate -s 0 a",
			want: []want{{intercept.OpTruncate, []string{"a"}}}},
		{name: "touch", files: map[string]string{"a": "x"}, script: "touch a",
			want: []want{{intercept.OpUtimes, []string{"a"}}}},
		{name: "chmod", files: map[string]string{"a": "x"}, script: "chmod 600 a",
			want: []want{{intercept.OpChmod, []string{"a"}}}},
		{name: "chown", files: map[string]string{"a": "x"}, script: "chown $(id -u) a",
			want: []want{{intercept.OpChown, []string{"a"}}}},
		{name: "chown -h", files: map[string]string{"a": "x", "l": "->a"}, script: "chown -h $(id -u) l",
			want: []want{{intercept.OpChown, []string{"l"}}}},
		{name: "ln -s", files: map[string]string{"a": "x"}, script: "ln -s a l",
			want: []want{{intercept.OpSymlink, []string{"l", "a"}}}},
		{name: "ln", files: map[string]string{"a": "x"}, script: "ln a h",
			want: []want{{intercept.OpLink, []string{"h", "a"}}}},
		{name: "mkdir -p", script: "mkdir -p x/y",
			want: []want{{intercept.OpMkdir, []string{"x"}}, {intercept.OpMkdir, []string{"x/y"}}}},
		{name: "rmdir", files: map[string]string{"e/": ""}, script: "rmdir e",
			want: []want{{intercept.OpRmdir, []string{"e"}}}},
		{name: "mkfifo", script: "mkfifo p",
			want: []want{{intercept.OpMknod, []string{"p"}}}},
		{name: "relative after cd", files: map[string]string{"sub/": ""}, script: "cd sub && echo x > g",
			want: []want{{intercept.OpCreate, []string{"sub/g"}}}},
		{name: "dot-dot", files: map[string]string{"sub/": ""}, script: "echo x > sub/../dd",
			want: []want{{intercept.OpCreate, []string{"dd"}}}},
		{name: "symlink inside", files: map[string]string{"t": "x", "l": "->t"}, script: "echo x > l",
			want: []want{{intercept.OpTruncate, []string{"t"}}}},
		{name: "dangling symlink", files: map[string]string{"l": "->missing"}, script: "echo x > l",
			want: []want{{intercept.OpCreate, []string{"missing"}}}},
		{name: "symlinked dir", files: map[string]string{"r/": "", "r/f": "x", "ld": "->r"}, script: "rm ld/f && rm ld",
			want: []want{{intercept.OpUnlink, []string{"r/f"}}, {intercept.OpUnlink, []string{"ld"}}}},
		{name: "dot-dot after symlink", files: map[string]string{"r/s/": "", "ls": "->r/s"}, script: "echo x > ls/../h",
			want: []want{{intercept.OpCreate, []string{"r/h"}}}},
		{name: "symlink outside", script: "echo x > l",
			files: map[string]string{"l": "->{out}/o"},
			want:  []want{{intercept.OpCreate, []string{"{out}/o"}}}},
		{name: "rename dir", files: map[string]string{"d/": "", "d/f": "x"}, script: "mv d e",
			want: []want{{intercept.OpRename, []string{"d", "e"}}}},
		// The working directory and symlink-free directories are
		// remembered for a moment: each change must be seen at once.
		{name: "cd back and forth", files: map[string]string{"a/": "", "b/": ""},
			script: "cd a && echo 1 > x && cd ../b && echo 2 > y && cd .. && echo 3 > z",
			want:   []want{{intercept.OpCreate, []string{"a/x"}}, {intercept.OpCreate, []string{"b/y"}}, {intercept.OpCreate, []string{"z"}}}},
		{name: "cwd renamed", files: map[string]string{"p/q/": ""},
			script: "cd p/q && echo 1 > one && mv ../../p ../../r && echo 2 > two",
			want:   []want{{intercept.OpCreate, []string{"p/q/one"}}, {intercept.OpCreate, []string{"r/q/two"}}}},
		{name: "dir swapped for symlink", files: map[string]string{"d/": "", "o": "->{out}"},
			script: "echo 1 > d/f && mv d e && mv o d && echo 2 > d/g",
			want:   []want{{intercept.OpCreate, []string{"d/f"}}, {intercept.OpCreate, []string{"{out}/g"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, out := tempDir(t), tempDir(t)
			mustWrite(t, dir, expand(tt.files, out))
			rec := &recorder{}
			res := sh(t, dir, rec, tt.script)
			if res.code != 0 {
				t.Fatalf("%q exited %d: %s", tt.script, res.code, res.output)
			}
			got := rec.Under(dir, out)
			for _, w := range tt.want {
				if !slices.ContainsFunc(got, w.matcher(dir, out)) {
					t.Errorf("%q: no %s %q among:%s", tt.script, w.op, w.paths, format(got))
				}
			}
		})
	}
}

// TestPython checks writes and os.replace from python3.
func TestPython(t *testing.T) {
	python := mustLook(t, "python3")
	dir := tempDir(t)
	mustWrite(t, dir, map[string]string{"a": "1", "b": "2"})
	rec := &recorder{}
	script := "import os\nopen('p.txt', 'w').write('x')\nos.replace('a', 'b')\n"
	res := run(t, dir, rec, python, "-c", script)
	if res.code != 0 {
		t.Fatalf("python3 exited %d: %s", res.code, res.output)
	}
	got := rec.Under(dir)
	for _, w := range []want{{intercept.OpCreate, []string{"p.txt"}}, {intercept.OpRename, []string{"a", "b"}}} {
		if !slices.ContainsFunc(got, w.matcher(dir, "")) {
			t.Errorf("python3: no %s %q among:%s", w.op, w.paths, format(got))
		}
	}
}

// TestTmpfileLink checks that an O_TMPFILE open is not a mutation and that
// the linkat giving it a name reports that name only.
func TestTmpfileLink(t *testing.T) {
	for _, how := range []string{"empty-path", "proc-fd"} {
		t.Run(how, func(t *testing.T) {
			dir := tempDir(t)
			rec := &recorder{}
			res := runProgram(t, dir, rec, "tmpfile-link", dir, "named", how)
			if res.code != 0 {
				t.Fatalf("tmpfile-link exited %d: %s", res.code, res.output)
			}
			got := rec.Under(dir)
			w := want{intercept.OpLink, []string{"named"}}
			if len(got) != 1 || !w.matcher(dir, "")(got[0]) {
				t.Errorf("tmpfile-link %s: got%s\nwant exactly %s %q", how, format(got), w.op, w.paths)
			}
		})
	}
}

// matcher matches a mutation with the wanted op and paths.
func (w want) matcher(dir, out string) func(intercept.Mutation) bool {
	return func(m intercept.Mutation) bool {
		if m.Op != w.op || len(m.Paths) != len(w.paths) {
			return false
		}
		for i, p := range w.paths {
			pattern := strings.Replace(p, "{out}", out, 1)
			if !filepath.IsAbs(pattern) {
				pattern = filepath.Join(dir, pattern)
			}
			if ok, _ := filepath.Match(pattern, m.Paths[i]); !ok {
				return false
			}
		}
		return true
	}
}

// expand replaces {out} in symlink targets.
func expand(files map[string]string, out string) map[string]string {
	res := make(map[string]string, len(files))
	for k, v := range files {
		res[k] = strings.Replace(v, "{out}", out, 1)
	}
	return res
}

// mustLook finds a tool or skips the test.
func mustLook(tb testing.TB, name string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		tb.Skipf("%s not found: %v", name, err)
	}
	return p
}

// runProgram runs one of the test binary's worker programs gated.
func runProgram(tb testing.TB, dir string, d intercept.Decider, name string, args ...string) result {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Setenv(helperEnv, name)
	// A race-enabled test binary sleeps a second before it exits, to let
	// reports of racing goroutines through; the programs have none.
	tb.Setenv("GORACE", "atexit_sleep_ms=0")
	return run(tb, dir, d, append([]string{self}, args...)...)
}
