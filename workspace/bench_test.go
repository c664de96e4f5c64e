package workspace_test

import (
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// BenchmarkClassify measures the sidecar's per-mutation cost: a path
// classified before (a map lookup), and a new path in a known directory
// (one round trip to the git check-ignore process).
func BenchmarkClassify(b *testing.B) {
	repo := mustRepo(b)
	mustWrite(b, repo, ".gitignore", "node_modules/\n*.log\nbuild/\n")
	mustWrite(b, repo, workspace.ConfigFile, `{"include": ["dist/*.js"], "exclude": ["vendor/**"]}`)
	r := mustRule(b, mustFind(b, repo))

	b.Run("cached", func(b *testing.B) {
		rels := []string{"src/pkg/a.go", "node_modules/x/y.js", "a.log", ".git/index", "vendor/v.go"}
		for _, rel := range rels {
			r.Classify(rel)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			r.Classify(rels[i%len(rels)])
		}
	})
	b.Run("uncached", func(b *testing.B) {
		r.Classify("src/pkg/warm.go")
		buf := []byte("src/pkg/f")
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			r.Classify(string(strconv.AppendInt(buf[:9], int64(i), 10)) + ".go")
		}
	})
	b.Run("uncached-parallel", func(b *testing.B) {
		r.Classify("src/par/warm.go")
		var n atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			buf := []byte("src/par/f")
			for pb.Next() {
				r.Classify(string(strconv.AppendInt(buf[:9], n.Add(1), 10)) + ".go")
			}
		})
	})
	b.Run("cached-parallel", func(b *testing.B) {
		r.Classify("src/pkg/a.go")
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				r.Classify("src/pkg/a.go")
			}
		})
	})
}

// BenchmarkRel measures converting an absolute path: inside the root
// (lexical), and outside it (its directory's symlinks resolved).
func BenchmarkRel(b *testing.B) {
	w := mustFind(b, mustRepo(b))
	inside := w.Root + "/src/pkg/a.go"
	outside := "/usr/lib/x/y.o"
	b.Run("inside", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.Rel(inside)
		}
	})
	b.Run("outside", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.Rel(outside)
		}
	})
}

// BenchmarkResolveExisting measures what a hook and the coordinator pay
// to resolve a path the agent names: an existing file three directories
// into the workspace (on a Mac's default volume, one getattrlist per
// element besides the lstat), and a new file there.
func BenchmarkResolveExisting(b *testing.B) {
	root := mustFind(b, mustRepo(b)).Root
	mustWrite(b, root, "src/pkg/dir/a.go", "")
	for _, name := range []string{"a.go", "new.go"} {
		p := root + "/src/pkg/dir/" + name
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				workspace.ResolveExisting(p)
			}
		})
	}
}

// BenchmarkAffectsIgnore measures the check the sidecar makes for every
// gated path: an ordinary file (the common case), git's index, and a
// .gitignore.
func BenchmarkAffectsIgnore(b *testing.B) {
	w := mustFind(b, mustRepo(b))
	for _, bc := range []struct{ name, abs string }{
		{name: "file", abs: w.Root + "/src/pkg/a.go"},
		{name: "index", abs: w.GitDir + "/index"},
		{name: "gitignore", abs: w.Root + "/src/.gitignore"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w.AffectsIgnore(bc.abs)
			}
		})
	}
}

func BenchmarkLocate(b *testing.B) {
	w := &workspace.Workspace{Root: "/home/user/src/project", GitDir: "/home/user/src/project/.git", CommonDir: "/home/user/src/project/.git", StateDir: "/home/user/src/project/.git/leasegate"}
	for _, bc := range []struct{ name, abs string }{
		{"gated", "/home/user/src/project/internal/pkg/file.go"},
		{"outside", "/tmp/go-build1234/b001/_pkg_.a"},
		{"git", "/home/user/src/project/.git/objects/ab/cdef"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = w.Locate(bc.abs, workspace.ReachFile)
			}
		})
	}
}

// BenchmarkFindInSubmodule is what joining the superproject adds to every
// command and hook call started inside a submodule: the walk to the
// enclosing checkout and its discovery, against a Find at the root.
func BenchmarkFindInSubmodule(b *testing.B) {
	lib := mustRepo(b)
	mustWrite(b, lib, "x.go", "package lib\n")
	mustGit(b, lib, "add", ".")
	mustGit(b, lib, "commit", "-q", "-m", "lib")
	super := mustRepo(b)
	mustGit(b, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub")
	for name, dir := range map[string]string{"superproject": super, "submodule": filepath.Join(super, "sub")} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := workspace.Find(dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
