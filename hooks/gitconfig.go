package hooks

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// gitSettings are the few git config values that change where a checkout's
// work tree is or which files git ignores: what the hook must know to
// answer without starting git.
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
