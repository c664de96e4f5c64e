package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

var (
	unixRules    = pathRules{sep: '/'}
	windowsRules = pathRules{sep: '\\', alt: '/', fold: true, volumes: true}
	// macRules are macOS's on a volume that folds case (APFS's and HFS+'s
	// default); on a case-sensitive volume they are macSensitiveRules,
	// which compare paths as unixRules do.
	macRules          = pathRules{sep: '/', fold: true, normalizes: true}
	macSensitiveRules = pathRules{sep: '/', normalizes: true}
)

// TestPathRulesUnder runs Under's core with each platform's rules, so the
// Windows and macOS rules are exercised on every platform. A ".." never reaches
// Under: filepath.Clean and ResolveExisting take it away first.
func TestPathRulesUnder(t *testing.T) {
	tests := []struct {
		name       string
		rules      pathRules
		base, p    string
		rel        string
		wantInside bool
	}{
		{name: "unix root itself", rules: unixRules, base: "/ws", p: "/ws", rel: ".", wantInside: true},
		{name: "unix beneath", rules: unixRules, base: "/ws", p: "/ws/a/b", rel: "a/b", wantInside: true},
		{name: "unix sibling", rules: unixRules, base: "/ws", p: "/wsx/a"},
		{name: "unix sibling named ..", rules: unixRules, base: "/ws", p: "/ws../a"},
		{name: "unix element named ..x", rules: unixRules, base: "/ws", p: "/ws/..x", rel: "..x", wantInside: true},
		{name: "unix parent", rules: unixRules, base: "/ws/a", p: "/ws"},
		{name: "unix case counts", rules: unixRules, base: "/ws", p: "/WS/a"},
		{name: "unix backslash is a name", rules: unixRules, base: "/ws", p: `/ws\a`},
		{name: "unix backslash kept", rules: unixRules, base: "/ws", p: `/ws/a\b`, rel: `a\b`, wantInside: true},
		{name: "unix filesystem root", rules: unixRules, base: "/", p: "/a", rel: "a", wantInside: true},
		{name: "unix filesystem root itself", rules: unixRules, base: "/", p: "/", rel: ".", wantInside: true},
		{name: "unix empty base", rules: unixRules, base: "", p: "/a"},

		{name: "windows beneath", rules: windowsRules, base: `C:\Users\Me\repo`, p: `C:\Users\Me\repo\src\x.go`, rel: "src/x.go", wantInside: true},
		{name: "windows lower drive letter", rules: windowsRules, base: `C:\Users\Me\repo`, p: `c:\Users\Me\repo\src\x.go`, rel: "src/x.go", wantInside: true},
		{name: "windows other case", rules: windowsRules, base: `C:\Users\Me\repo`, p: `c:\users\ME\REPO\src\x.go`, rel: "src/x.go", wantInside: true},
		{name: "windows forward slashes", rules: windowsRules, base: `C:\Users\Me\repo`, p: "c:/Users/me/repo/src/x.go", rel: "src/x.go", wantInside: true},
		{name: "windows mixed slashes", rules: windowsRules, base: `C:\Users\Me\repo`, p: `C:\Users\Me\repo/src\x.go`, rel: "src/x.go", wantInside: true},
		{name: "windows base as git prints it", rules: windowsRules, base: "C:/Users/Me/repo", p: `C:\Users\Me\repo\a`, rel: "a", wantInside: true},
		{name: "windows root itself", rules: windowsRules, base: `C:\Users\Me\repo`, p: `c:\users\me\repo`, rel: ".", wantInside: true},
		{name: "windows sibling", rules: windowsRules, base: `C:\Users\Me\repo`, p: `C:\Users\Me\repox\a`},
		{name: "windows sibling named ..", rules: windowsRules, base: `C:\Users\Me\repo`, p: `C:\Users\Me\repo..\a`},
		{name: "windows element named ..x", rules: windowsRules, base: `C:\Users\Me\repo`, p: `C:\Users\Me\repo\..x`, rel: "..x", wantInside: true},
		{name: "windows parent", rules: windowsRules, base: `C:\Users\Me\repo`, p: `C:\Users\Me`},
		{name: "windows other drive", rules: windowsRules, base: `C:\Users\Me\repo`, p: `D:\Users\Me\repo\a`},
		{name: "windows drive root", rules: windowsRules, base: `C:\`, p: `c:\a\b`, rel: "a/b", wantInside: true},
		{name: "windows drive root itself", rules: windowsRules, base: `C:\`, p: `c:/`, rel: ".", wantInside: true},
		{name: "windows drive root, other drive", rules: windowsRules, base: `C:\`, p: `D:\a`},
		{name: "windows unc", rules: windowsRules, base: `\\server\share\repo`, p: `\\SERVER\Share\repo\a\b`, rel: "a/b", wantInside: true},
		{name: "windows unc slashes", rules: windowsRules, base: `\\server\share\repo`, p: "//server/share/repo/a", rel: "a", wantInside: true},
		{name: "windows unc sibling", rules: windowsRules, base: `\\server\share\repo`, p: `\\server\share\repox\a`},
		{name: "windows unc other share", rules: windowsRules, base: `\\server\share\repo`, p: `\\server\other\repo\a`},
		{name: "windows unc share root", rules: windowsRules, base: `\\server\share\`, p: `\\server\share\a`, rel: "a", wantInside: true},
		{name: "windows unc is not a drive", rules: windowsRules, base: `\\server\share\repo`, p: `C:\server\share\repo\a`},
		{name: "windows non-ascii case", rules: windowsRules, base: `C:\Users\Émile\repo`, p: `c:\users\émile\repo\Ä.go`, rel: "Ä.go", wantInside: true},
		{name: "windows non-ascii differs", rules: windowsRules, base: `C:\Users\Émile\repo`, p: `C:\Users\Emile\repo\a`},
		{name: "windows empty base", rules: windowsRules, base: "", p: `C:\a`},

		{name: "mac root in another case", rules: macRules, base: "/Users/me/Repo", p: "/users/ME/repo/src/X.go", rel: "src/X.go", wantInside: true},
		{name: "mac root itself in another case", rules: macRules, base: "/Users/me/Repo", p: "/USERS/me/repo", rel: ".", wantInside: true},
		{name: "mac file in another case keeps it", rules: macRules, base: "/Users/me/repo", p: "/Users/me/repo/SRC/x.GO", rel: "SRC/x.GO", wantInside: true},
		{name: "mac sibling in another case", rules: macRules, base: "/Users/me/repo", p: "/Users/me/REPOX/a"},
		{name: "mac parent", rules: macRules, base: "/Users/me/repo", p: "/Users/ME"},
		{name: "mac backslash is a name", rules: macRules, base: "/Users/me/repo", p: `/Users/me/repo\a`},
		{name: "mac non-ascii case", rules: macRules, base: "/Users/Émile/Été", p: "/users/émile/ÉTÉ/Ä.go", rel: "Ä.go", wantInside: true},
		{name: "mac greek final sigma", rules: macRules, base: "/Users/me/ΟΔΟΣ", p: "/Users/me/οδος/a", rel: "a", wantInside: true},
		{name: "mac non-ascii differs", rules: macRules, base: "/Users/Émile/repo", p: "/Users/Emile/repo/a"},
		// A decomposed é (e + U+0301) is the composed one on the volume,
		// but not by the rules: ResolveExisting spells the existing part of
		// a path as the volume keeps it before the rules compare it.
		{name: "mac decomposed root not by rules", rules: macRules, base: "/Users/me/caf\u00e9", p: "/Users/me/cafe\u0301/a"},
		{name: "mac case-sensitive volume", rules: unixRules, base: "/Users/me/Repo", p: "/Users/me/repo/a"},
	}
	for _, tt := range tests {
		rel, inside := tt.rules.under(tt.base, tt.p)
		if rel != tt.rel || inside != tt.wantInside {
			t.Errorf("%s: under(%q, %q) = %q, %v, want %q, %v", tt.name, tt.base, tt.p, rel, inside, tt.rel, tt.wantInside)
		}
	}
}

// TestPathRulesSame: names that only differ in case are one name on
// Windows and on a Mac's default volume, and two elsewhere.
func TestPathRulesSame(t *testing.T) {
	tests := []struct {
		rules pathRules
		a, b  string
		want  bool
	}{
		{rules: unixRules, a: "leasegate.json", b: "leasegate.json", want: true},
		{rules: unixRules, a: "leasegate.json", b: "LEASEGATE.json"},
		{rules: unixRules, a: "leasegate.json", b: "leasegate.jsonx"},
		{rules: windowsRules, a: "leasegate.json", b: "LEASEGATE.json", want: true},
		{rules: windowsRules, a: ".git", b: ".GIT", want: true},
		{rules: windowsRules, a: "leasegate.json", b: "leasegate.jso"},
		{rules: windowsRules, a: "leasegate.json", b: "leasegate.jsonx"},
		{rules: windowsRules, a: "info/exclude", b: `INFO\exclude`, want: true},
		{rules: macRules, a: ".gitignore", b: ".GitIgnore", want: true},
		{rules: macRules, a: "info/exclude", b: "Info/EXCLUDE", want: true},
		{rules: macRules, a: "info/exclude", b: `info\exclude`},
	}
	for _, tt := range tests {
		if got := tt.rules.same(tt.a, tt.b); got != tt.want {
			t.Errorf("%+v.same(%q, %q) = %v, want %v", tt.rules, tt.a, tt.b, got, tt.want)
		}
	}
}

// TestPathRulesJoin: a relative path is made absolute against the current
// directory as the platform makes it; on Windows a rooted path keeps the
// current directory's volume.
func TestPathRulesJoin(t *testing.T) {
	tests := []struct {
		rules        pathRules
		cwd, p, want string
	}{
		{rules: unixRules, cwd: "/ws/src", p: "a.go", want: "/ws/src/a.go"},
		{rules: unixRules, cwd: "/ws/src", p: "../a.go", want: "/ws/src/../a.go"},
		{rules: unixRules, cwd: "/ws", p: `C:a.go`, want: "/ws/C:a.go"},
		{rules: windowsRules, cwd: `C:\ws\src`, p: `a.go`, want: `C:\ws\src\a.go`},
		{rules: windowsRules, cwd: `C:\ws\src`, p: `..\a.go`, want: `C:\ws\src\..\a.go`},
		{rules: windowsRules, cwd: `C:\ws\src`, p: `\ws\a.go`, want: `C:\ws\a.go`},
		{rules: windowsRules, cwd: `C:\ws\src`, p: `/ws/a.go`, want: `C:/ws/a.go`},
		{rules: windowsRules, cwd: `\\server\share\ws`, p: `\ws\a.go`, want: `\\server\share\ws\a.go`},
		{rules: windowsRules, cwd: `C:\ws\src`, p: `c:a.go`, want: `C:\ws\src\a.go`},
		{rules: windowsRules, cwd: `C:\ws\src`, p: `D:a.go`, want: `D:\a.go`},
	}
	for _, tt := range tests {
		if got := tt.rules.join(tt.cwd, tt.p); got != tt.want {
			t.Errorf("%+v.join(%q, %q) = %q, want %q", tt.rules, tt.cwd, tt.p, got, tt.want)
		}
	}
}

// TestPathRulesVolume: the volumes a Windows path may start with, and
// none on Unix.
func TestPathRulesVolume(t *testing.T) {
	tests := []struct {
		rules   pathRules
		p, want string
	}{
		{rules: unixRules, p: `C:\ws`, want: ""},
		{rules: unixRules, p: `//server/share/ws`, want: ""},
		{rules: windowsRules, p: `C:\ws`, want: "C:"},
		{rules: windowsRules, p: `c:ws`, want: "c:"},
		{rules: windowsRules, p: `1:\ws`, want: ""},
		{rules: windowsRules, p: `\\server\share\ws`, want: `\\server\share`},
		{rules: windowsRules, p: `//server/share`, want: `//server/share`},
		{rules: windowsRules, p: `\\server`, want: ""},
		{rules: windowsRules, p: `\\server\`, want: ""},
		{rules: windowsRules, p: `\\\server\share`, want: ""},
		{rules: windowsRules, p: `\ws`, want: ""},
		{rules: windowsRules, p: ``, want: ""},
	}
	for _, tt := range tests {
		if got := tt.rules.volume(tt.p); got != tt.want {
			t.Errorf("%+v.volume(%q) = %q, want %q", tt.rules, tt.p, got, tt.want)
		}
	}
}

// TestPathRulesHasDotDot: a ".." element is found between any of the
// rules' separators, at either end and after a volume; a name that merely
// contains ".." is not one, and "\" separates nothing on Unix.
func TestPathRulesHasDotDot(t *testing.T) {
	tests := []struct {
		rules pathRules
		p     string
		want  bool
	}{
		{rules: unixRules, p: "..", want: true},
		{rules: unixRules, p: "../x", want: true},
		{rules: unixRules, p: "a/../b", want: true},
		{rules: unixRules, p: "a/..", want: true},
		{rules: unixRules, p: "/ws/a/../b", want: true},
		{rules: unixRules, p: "a/..b/c..", want: false},
		{rules: unixRules, p: "a/.../b", want: false},
		{rules: unixRules, p: `a\..\b`, want: false},
		{rules: unixRules, p: "", want: false},
		{rules: windowsRules, p: `a\..\b`, want: true},
		{rules: windowsRules, p: `a/..\b`, want: true},
		{rules: windowsRules, p: `..\x`, want: true},
		{rules: windowsRules, p: `C:\ws\..`, want: true},
		{rules: windowsRules, p: `C:..\x`, want: true},
		{rules: windowsRules, p: `\\server\share\..\x`, want: true},
		{rules: windowsRules, p: `C:\ws\a..\b`, want: false},
		{rules: windowsRules, p: `docs\`, want: false},
	}
	for _, tt := range tests {
		if got := tt.rules.hasDotDot(tt.p); got != tt.want {
			t.Errorf("%+v.hasDotDot(%q) = %v, want %v", tt.rules, tt.p, got, tt.want)
		}
	}
}

// TestPathRulesDotDot: after a symlink, ".." steps back from where the
// link led by Unix rules and removes the link's name by Windows rules,
// each as its system writes the file. Run with real symlinks here.
func TestPathRulesDotDot(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"ws/src", "elsewhere/dir"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "elsewhere", "dir"), filepath.Join(root, "ws", "link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	lexical := pathRules{sep: filepath.Separator, lexicalDotDot: true}
	tests := []struct {
		rules   pathRules
		in, out string
	}{
		{rules: unixRules, in: "ws/link/../x.go", out: "elsewhere/x.go"},
		{rules: lexical, in: "ws/link/../x.go", out: "ws/x.go"},
		{rules: lexical, in: "ws/link/y.go", out: "elsewhere/dir/y.go"},
		{rules: lexical, in: "ws/src/../../ws/a.go", out: "ws/a.go"},
	}
	for _, tt := range tests {
		got := tt.rules.resolveExisting(root + string(filepath.Separator) + filepath.FromSlash(tt.in)) // not Join, which cleans
		if want := filepath.Join(mustEval(t, root), filepath.FromSlash(tt.out)); got != want {
			t.Errorf("%+v.resolveExisting(%s) = %s, want %s", tt.rules, tt.in, got, want)
		}
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
