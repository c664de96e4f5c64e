//go:build linux

// The mount tables these tests read are Linux's (mountInfo reads none
// elsewhere), and their paths are joined with slashes, as filepath.Join
// does not on Windows, whose tests run under Wine.

package workspace

import (
	"slices"
	"testing"
)

// TestAliasesIn: the bind mounts of a mount table that show the workspace
// root, a directory in it or one above it elsewhere are its aliases; a
// mount of another device, or of a directory beside the workspace, is not.
func TestAliasesIn(t *testing.T) {
	const info = `27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
22 27 0:21 / /proc rw,relatime - proc proc rw
43 27 254:0 /srv/repo /mnt/view rw,relatime - ext4 /dev/vda rw
44 27 254:0 /srv/repo/src /home/me/src\040code rw,relatime - ext4 /dev/vda rw
45 27 254:0 /srv /data rw,relatime - ext4 /dev/vda rw
46 27 254:0 /srv/other /mnt/other rw,relatime - ext4 /dev/vda rw
47 27 0:30 /srv/repo /mnt/tmpfs rw,relatime - tmpfs tmpfs rw
`
	tests := []struct {
		name, root string
		want       []Alias
	}{
		{name: "from the root's own path", root: "/srv/repo", want: []Alias{
			{At: "/mnt/view", Is: "/srv/repo"},
			{At: "/home/me/src code", Is: "/srv/repo/src"},
			{At: "/data/repo", Is: "/srv/repo"},
		}},
		{name: "from the bind mount's path", root: "/mnt/view", want: []Alias{
			{At: "/srv/repo", Is: "/mnt/view"},
			{At: "/home/me/src code", Is: "/mnt/view/src"},
			{At: "/data/repo", Is: "/mnt/view"},
		}},
		{name: "none", root: "/srv/third", want: []Alias{{At: "/data/third", Is: "/srv/third"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := aliasesIn([]byte(info), tt.root); !slices.Equal(got, tt.want) {
				t.Errorf("aliasesIn(%q) = %v, want %v", tt.root, got, tt.want)
			}
		})
	}
}

// TestDealias: a path through an alias is the workspace path it names; a
// path through none is itself.
func TestDealias(t *testing.T) {
	aliases := []Alias{{At: "/mnt/view", Is: "/srv/repo"}, {At: "/home/me/src", Is: "/srv/repo/src"}}
	for _, tt := range []struct {
		abs, want string
		through   bool
	}{
		{abs: "/mnt/view/a.txt", want: "/srv/repo/a.txt", through: true},
		{abs: "/mnt/view", want: "/srv/repo", through: true},
		{abs: "/home/me/src/x/y.go", want: "/srv/repo/src/x/y.go", through: true},
		{abs: "/mnt/viewer/a.txt", want: "/mnt/viewer/a.txt"},
		{abs: "/srv/repo/a.txt", want: "/srv/repo/a.txt"},
	} {
		if got, through := Dealias(aliases, tt.abs); got != tt.want || through != tt.through {
			t.Errorf("Dealias(%q) = %q, %v, want %q, %v", tt.abs, got, through, tt.want, tt.through)
		}
	}
}
