package gate_test

import (
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

func TestLiteral(t *testing.T) {
	tests := []struct{ name, want string }{
		{"src/a.go", "src/a.go"},
		{`a\b`, `a\b`}, // a backslash before an ordinary character stays
		{"app/[id]/page.tsx", `app/\[id]/page.tsx`},
		{"*", `\*`},
		{"**", `\*\*`},
		{"x?.txt", `x\?.txt`},
		{"\x1b[31m", "\x1b\\[31m"},
		{`a\*`, `a\\\*`},
		{`a\]`, `a\\]`},
		{`a\\`, `a\\\`},
		{`a\`, `a\`},
	}
	for _, tt := range tests {
		got := gate.Literal(tt.name)
		if got != tt.want {
			t.Errorf("Literal(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if gate.IsGlob(got) {
			t.Errorf("IsGlob(Literal(%q)) = true, want false", tt.name)
		}
		if back := gate.Unescape(got); back != tt.name {
			t.Errorf("Unescape(Literal(%q)) = %q, want it back", tt.name, back)
		}
		if c, err := gate.CleanPath(got); err != nil || c != got {
			t.Errorf("CleanPath(Literal(%q)) = %q, %v; want it unchanged", tt.name, c, err)
		}
		if !gate.Match(got, got) {
			t.Errorf("Match(%q, %q) = false, want true", got, got)
		}
	}
}

func TestLiteralPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"a/b.go": "a/b.go", `app/\[id]/*.tsx`: "app/[id]/", "*.go": "", `a\*/b/c*`: "a*/b/", `x\\*`: "",
	} {
		if got := gate.LiteralPrefix(in); got != want {
			t.Errorf("LiteralPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLiteralNameLeasesOneFile: a write of a file named with glob
// metacharacters leases that file only (a file lease, released by a
// commit like any other), and a directory rename or removal of a
// directory so named meets every lease inside it.
func TestLiteralNameLeasesOneFile(t *testing.T) {
	// write's paths are taken for a file scope's, as the coordinator takes
	// a write's: sparse where one is a glob.
	write := func(name string, paths ...string) gate.Request {
		r := write(name, paths...)
		r.Scope.Type = gate.ScopeTypeOf(paths)
		return r
	}
	w := newWorld(t)
	star := w.grant(write("alice", gate.Literal("*")), t0)
	if star.Scope.Type != gate.ScopeFile {
		t.Fatalf("lease of the file * has scope %s, want %s", star.Scope.Type, gate.ScopeFile)
	}
	w.grant(write("bob", "x.txt"), t0)
	page := w.grant(write("alice", gate.Literal("app/[id]/page.tsx")), t0)
	w.grant(write("bob", "app/a/page.tsx"), t0)
	w.grant(write("bob", gate.Literal("app/[id]/other.tsx")), t0)
	for _, p := range []string{gate.Subtree("app/[id]"), gate.Subtree("app"), gate.Literal("app/[id]/page.tsx")} {
		d := gate.Decide(write("bob", p), w.table, t0.Add(time.Second))
		if d.Granted || d.Holder == nil || d.Holder.ID != page.ID {
			t.Fatalf("Decide(write %q by bob) = %s, want held by alice's lease %s", p, d.Reason, page.ID)
		}
	}
	if d := gate.Decide(write("carol", gate.Subtree("app/[ix]")), w.table, t0.Add(time.Second)); !d.Granted {
		t.Fatalf("Decide(write %q by carol) = %s: %s, want granted", gate.Subtree("app/[ix]"), d.Reason, d.Message)
	}
}
