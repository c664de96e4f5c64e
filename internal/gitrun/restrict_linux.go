package gitrun

import (
	"debug/elf"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// startRestricted starts cmd from a thread that Landlock allows to execute
// only git: its binary, its exec-path (git's own helpers) and its ELF
// interpreter. A repository's filter driver, fsmonitor hook or any other
// configured command then fails to start (EACCES) instead of running
// outside the gate with leasegate's rights. The restriction is inherited
// by git and everything it starts, and by nothing else: the thread ends
// with the goroutine, which never unlocks it. (A thread that ends sends
// the parent-death signal to the children it forked: a process started
// with Pdeathsig must be started from a thread locked until it is reaped,
// as seccomp.Start does.)
//
// Without Landlock (Linux before 5.13, or not enabled), git starts
// unrestricted and only the neutralized settings apply.
func startRestricted(cmd *exec.Cmd) error {
	if cmd.Err != nil {
		return cmd.Start() // git not found: exec's own error
	}
	rs, err := rulesetFor(cmd.Path)
	if errors.Is(err, errNoLandlock) {
		return cmd.Start()
	}
	if err != nil {
		return fmt.Errorf("restrict git: %w", err)
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread is thrown away
		if err := restrictThread(rs); err != nil {
			errc <- fmt.Errorf("restrict git: %w", err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}

// errNoLandlock means the kernel has no Landlock to restrict git with.
var errNoLandlock = errors.New("landlock unavailable")

// rulesets caches, per git binary, the Landlock ruleset fd allowing it.
var rulesets struct {
	sync.Mutex
	byPath map[string]int
	err    error // errNoLandlock once found missing
}

// rulesetFor returns the ruleset for the git binary at path.
func rulesetFor(path string) (int, error) {
	rulesets.Lock()
	defer rulesets.Unlock()
	if rulesets.err != nil {
		return -1, rulesets.err
	}
	if fd, ok := rulesets.byPath[path]; ok {
		return fd, nil
	}
	fd, err := newRuleset(path)
	if errors.Is(err, errNoLandlock) {
		rulesets.err = err
	}
	if err != nil {
		return -1, err
	}
	if rulesets.byPath == nil {
		rulesets.byPath = map[string]int{}
	}
	rulesets.byPath[path] = fd
	return fd, nil
}

// rulesetAttr is struct landlock_ruleset_attr as of Landlock ABI 1.
type rulesetAttr struct{ handledFS uint64 }

// newRuleset handles execution only, and allows it for git's files.
func newRuleset(path string) (int, error) {
	if path == "" || !filepath.IsAbs(path) {
		return -1, fmt.Errorf("git not found on PATH")
	}
	allowed, err := gitExecutables(path)
	if err != nil {
		return -1, err
	}
	attr := rulesetAttr{handledFS: unix.LANDLOCK_ACCESS_FS_EXECUTE}
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	switch errno {
	case 0:
	case unix.ENOSYS, unix.EOPNOTSUPP:
		return -1, errNoLandlock
	default:
		return -1, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	fd := int(r)
	for _, p := range allowed {
		if err := allowExecute(fd, p); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}

// allowExecute adds a rule allowing execution of p (a file) or beneath it
// (a directory).
func allowExecute(ruleset int, p string) error {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", p, err)
	}
	defer unix.Close(fd)
	rule := unix.LandlockPathBeneathAttr{Allowed_access: unix.LANDLOCK_ACCESS_FS_EXECUTE, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", p, errno)
	}
	return nil
}

// gitExecutables are the files git needs to execute: the binary (symlinks
// resolved), its ELF interpreter, and its exec-path, where its helpers
// (and the hard links of its builtins) live.
func gitExecutables(path string) ([]string, error) {
	bin, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	files := []string{bin}
	if interp, err := interpreter(bin); err != nil {
		return nil, err
	} else if interp != "" {
		files = append(files, interp)
	}
	out, err := exec.Command(bin, "--exec-path").Output()
	if err != nil {
		return nil, fmt.Errorf("git --exec-path: %w", err)
	}
	if dir := strings.TrimSpace(string(out)); filepath.IsAbs(dir) {
		files = append(files, dir)
	}
	return files, nil
}

// interpreter is the ELF interpreter of bin, "" for a static binary.
func interpreter(bin string) (string, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return "", fmt.Errorf("git at %s: %w", bin, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return "", fmt.Errorf("git at %s: interpreter: %w", bin, err)
		}
		return filepath.EvalSymlinks(strings.TrimRight(string(b), "\x00"))
	}
	return "", nil
}

// restrictThread applies the ruleset to the calling thread, which must be
// locked and thrown away afterwards: no_new_privs and the Landlock domain
// cannot be undone.
func restrictThread(ruleset int) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	_, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}
