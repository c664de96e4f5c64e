package workspace

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"
)

// Alias is another path of a directory of the workspace: a bind mount of
// the root, of a directory in it, or of a directory above it, shows that
// directory at At. Is is the workspace path At names. A write through At
// changes the workspace's file without its path ever lying under the
// root, so the gate takes At's paths for Is's (Dealias).
type Alias struct {
	At string
	Is string
}

// Aliases lists the other paths at which this process's mount namespace
// shows the workspace's directories (bind mounts): from
// /proc/self/mountinfo on Linux, none elsewhere. Mounts made later are not
// seen (a worker under the seccomp gate may not mount).
func (w *Workspace) Aliases() ([]Alias, error) {
	info, err := mountInfo()
	if err != nil || info == nil {
		return nil, err
	}
	return aliasesIn(info, w.Root), nil
}

// Dealias returns the workspace path that abs names through one of
// aliases, and true; or abs and false when it names none through them.
func Dealias(aliases []Alias, abs string) (string, bool) {
	for _, a := range aliases {
		if rel, in := Under(a.At, abs); in {
			return filepath.Join(a.Is, rel), true
		}
	}
	return abs, false
}

// mount is one line of a mountinfo file: the file system's device, the
// directory of it mounted (root), and where (point).
type mount struct{ dev, root, point string }

// aliasesIn returns the aliases of the directory root found in info, a
// mountinfo file: every mount of root's file system, other than the one
// root lies on, whose mounted directory holds root's directory on that
// file system or lies inside it.
func aliasesIn(info []byte, root string) []Alias {
	mounts := parseMountInfo(info)
	on := -1
	for i, m := range mounts {
		if _, in := Under(m.point, root); in && (on < 0 || len(m.point) >= len(mounts[on].point)) {
			on = i
		}
	}
	if on < 0 {
		return nil
	}
	rel, _ := Under(mounts[on].point, root)
	fsPath := filepath.Join(mounts[on].root, rel)
	var aliases []Alias
	for i, m := range mounts {
		if i == on || m.dev != mounts[on].dev {
			continue
		}
		var a Alias
		if below, in := Under(m.root, fsPath); in {
			a = Alias{At: filepath.Join(m.point, below), Is: root}
		} else if inside, in := Under(fsPath, m.root); in {
			a = Alias{At: m.point, Is: filepath.Join(root, inside)}
		} else {
			continue
		}
		if a.At != root {
			aliases = append(aliases, a)
		}
	}
	return aliases
}

// parseMountInfo reads the device, root and mount point of each line of
// a mountinfo file (proc(5)), whose paths escape space, tab, newline and
// backslash in octal.
func parseMountInfo(info []byte) []mount {
	var mounts []mount
	sc := bufio.NewScanner(bytes.NewReader(info))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		mounts = append(mounts, mount{dev: f[2], root: unescapeMount(f[3]), point: unescapeMount(f[4])})
	}
	return mounts
}

// unescapeMount undoes mountinfo's octal escapes (`\040` for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }
