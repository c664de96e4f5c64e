package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// gitSettings are the few git config values that change where a checkout's
// work tree is or which files git ignores: what must be known to answer
// without starting git.
type gitSettings struct {
	worktree     string // core.worktree; "" when unset
	bare         bool   // core.bare is true
	excludesFile string // core.excludesFile; "" when unset
}

// errGitConfigUnsure means a config file says something readGitConfig does
// not follow (an include, a quoted or escaped value of interest): only git
// can tell what it means.
var errGitConfigUnsure = errors.New("git config needs git to read")

// readGitConfig reads the settings of the config files at paths in order,
// later files overriding earlier ones as in git. A missing file is
// skipped.
func readGitConfig(paths ...string) (gitSettings, error) {
	var s gitSettings
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			return s, err
		}
		if err := scanGitConfig(data, &s); err != nil {
			return s, err
		}
	}
	return s, nil
}

// scanGitConfig applies one config file's settings to s. Section and key
// names are case-insensitive; a key may follow its section header on the
// same line.
func scanGitConfig(data []byte, s *gitSettings) error {
	section := ""
	for _, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimSpace(string(raw))
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return errGitConfigUnsure
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			if strings.HasPrefix(section, "include") {
				return errGitConfigUnsure
			}
			line = strings.TrimSpace(line[end+1:])
		}
		if line == "" || line[0] == '#' || line[0] == ';' || section != "core" {
			continue
		}
		key, value, hasValue := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		value = strings.TrimSpace(value)
		if err := s.set(key, value, hasValue); err != nil {
			return err
		}
	}
	return nil
}

// set records one core.* key.
func (s *gitSettings) set(key, value string, hasValue bool) error {
	switch key {
	case "worktree", "excludesfile", "bare":
	default:
		return nil
	}
	if strings.ContainsAny(value, "\"\\#;") {
		return errGitConfigUnsure
	}
	switch key {
	case "worktree":
		s.worktree = value
	case "excludesfile":
		s.excludesFile = value
	case "bare":
		switch strings.ToLower(value) {
		case "false", "no", "off", "0":
			s.bare = false
		case "true", "yes", "on", "1":
			s.bare = true
		case "":
			s.bare = !hasValue
		default:
			return errGitConfigUnsure
		}
	}
	return nil
}

// ExcludesFile is the path of the user's ignore file: core.excludesFile
// from the system, global and repository config, or git's default. It
// reports false when only git can tell (settings given on git's command
// line, an include, a value it does not follow).
func (w *Workspace) ExcludesFile() (string, bool) {
	_, params := os.LookupEnv("GIT_CONFIG_PARAMETERS")
	_, count := os.LookupEnv("GIT_CONFIG_COUNT")
	if params || count {
		return "", false // settings from the command line: only git reads them
	}
	set, err := readGitConfig(w.configFiles()...)
	if err != nil {
		return "", false
	}
	home := os.Getenv("HOME")
	f := set.excludesFile
	switch {
	case f == "":
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			if home == "" {
				return "", false
			}
			xdg = filepath.Join(home, ".config")
		}
		return filepath.Join(xdg, "git", "ignore"), true
	case strings.HasPrefix(f, "~/") && home != "":
		return filepath.Join(home, f[2:]), true
	case filepath.IsAbs(f):
		return f, true
	}
	return "", false
}

// configFiles are the config files git reads, in order: system, global,
// repository, worktree.
func (w *Workspace) configFiles() []string {
	var files []string
	if sys, ok := os.LookupEnv("GIT_CONFIG_SYSTEM"); ok {
		files = append(files, sys)
	} else if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, "/etc/gitconfig", "/usr/local/etc/gitconfig")
	}
	if global, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, global)
	} else {
		home, xdg := os.Getenv("HOME"), os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	return append(files, filepath.Join(w.CommonDir, "config"), filepath.Join(w.GitDir, "config.worktree"))
}
