package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Gemini CLI's trust levels in its trustedFolders.json.
const (
	geminiTrustFolder = "TRUST_FOLDER"
	geminiTrustParent = "TRUST_PARENT"
	geminiDoNotTrust  = "DO_NOT_TRUST"
)

// geminiSettings is what leasegate reads of a Gemini CLI settings file:
// the switches that keep installed hooks from running.
type geminiSettings struct {
	Security struct {
		FolderTrust struct {
			Enabled *bool `json:"enabled"`
		} `json:"folderTrust"`
	} `json:"security"`
	HooksConfig struct {
		Enabled  *bool    `json:"enabled"`
		Disabled []string `json:"disabled"`
	} `json:"hooksConfig"`
}

// GeminiProblems says what keeps the hooks leasegate installed in file
// for the workspace root from gating Gemini CLI's writes, each with its
// fix: Gemini CLI would not run them, or would kill them before the
// retry; none means they gate. home is the user's home directory
// (GEMINI_CLI_HOME, where Gemini CLI reads it from, takes its place).
// Gemini CLI ignores a project's .gemini/settings.json, hooks and MCP
// server alike, in a folder it does not trust, saying so only in its
// debug log; a headless run (-p) there refuses to start instead.
func GeminiProblems(root, file, home string) []string {
	home = geminiHome(home)
	var ps []string
	project := file == SettingsPath(Gemini, root)
	if project {
		if p := geminiTrustProblem(root, home); p != "" {
			ps = append(ps, p)
		}
	}
	layers := []string{geminiSystemDefaultsPath(), SettingsPath(Gemini, home)}
	if project {
		layers = append(layers, file)
	}
	layers = append(layers, geminiSystemSettingsPath())
	ps = append(ps, geminiHooksOff(layers, file)...)
	if p := geminiShortTimeout(file); p != "" {
		ps = append(ps, p)
	}
	return ps
}

// geminiHome is where Gemini CLI keeps the user's .gemini directory.
func geminiHome(home string) string {
	if dir := os.Getenv("GEMINI_CLI_HOME"); dir != "" {
		return dir
	}
	return home
}

// geminiTrustProblem says why Gemini CLI would not load the project's
// settings in root, or "" when it would. It follows Gemini CLI's own
// order: the environment, whether folder trust is on (the user's and
// the system's settings), then the longest rule of trustedFolders.json
// that covers root.
func geminiTrustProblem(root, home string) string {
	const ignored = "Gemini CLI ignores .gemini/settings.json in a folder it does not trust: these hooks never run and leasegate's MCP server never starts"
	switch {
	case os.Getenv("GEMINI_RESTRICTED_MODE") == "true" || os.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false":
		return ignored + " (GEMINI_RESTRICTED_MODE=true or GEMINI_CLI_TRUST_WORKSPACE=false is set here)"
	case os.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return ""
	case !geminiFolderTrustOn(home):
		return ""
	}
	path := geminiTrustedFoldersPath(home)
	rule, level := geminiTrustRule(path, root)
	switch level {
	case geminiTrustFolder, geminiTrustParent:
		return ""
	case geminiDoNotTrust:
		return fmt.Sprintf("%s, and %s marks %s %s; trust the folder with /permissions in Gemini CLI (or change that rule)", ignored, path, rule, geminiDoNotTrust)
	}
	return fmt.Sprintf("%s, and it has not been told to trust %s (%s names no rule for it): start `gemini` there and choose to trust the folder "+
		"(\"Don't trust\" leaves every write ungated without a word); `gemini -p` refuses to start there until then, unless given --skip-trust or GEMINI_CLI_TRUST_WORKSPACE=true", ignored, root, path)
}

// geminiFolderTrustOn reports whether Gemini CLI checks folder trust: on
// unless the user's or the system's settings turn it off (the system's
// override the user's).
func geminiFolderTrustOn(home string) bool {
	on := true
	for _, f := range []string{geminiSystemDefaultsPath(), SettingsPath(Gemini, home), geminiSystemSettingsPath()} {
		if s, ok := readGeminiSettings(f); ok && s.Security.FolderTrust.Enabled != nil {
			on = *s.Security.FolderTrust.Enabled
		}
	}
	return on
}

// geminiTrustedFoldersPath is the file Gemini CLI keeps its trust
// decisions in.
func geminiTrustedFoldersPath(home string) string {
	if p := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(home, ".gemini", "trustedFolders.json")
}

// geminiTrustRule is the rule of the trust file at path that decides
// root, as Gemini CLI picks it: of the rules whose folder (a
// TRUST_PARENT rule's parent) holds root, the one with the longest path.
func geminiTrustRule(path, root string) (rule, level string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", ""
	}
	var rules map[string]string
	if json.Unmarshal(data, &rules) != nil {
		return "", ""
	}
	root = realPath(root)
	for p, l := range rules {
		dir := p
		if l == geminiTrustParent {
			dir = filepath.Dir(p)
		}
		if isWithin(root, realPath(dir)) && len(p) > len(rule) {
			rule, level = p, l
		}
	}
	return rule, level
}

// isWithin reports whether path is dir or lies under it.
func isWithin(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// realPath is path with its symbolic links resolved, where it exists.
func realPath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// geminiHooksOff says which of the settings files (read in the order
// given, each overriding the ones before) turns off every hook with
// hooksConfig.enabled, or lists leasegate's command in
// hooksConfig.disabled, when that keeps the hooks in file from running.
func geminiHooksOff(layers []string, file string) []string {
	var ps []string
	off := ""
	for _, f := range layers {
		s, ok := readGeminiSettings(f)
		if !ok {
			continue
		}
		if e := s.HooksConfig.Enabled; e != nil {
			off = map[bool]string{true: "", false: f}[*e]
		}
		hs, _ := installedHandlers(Gemini, file)
		if slices.ContainsFunc(hs, func(h handlerCmd) bool { return slices.Contains(s.HooksConfig.Disabled, h.command) }) {
			ps = append(ps, fmt.Sprintf("%s lists leasegate's hook command in hooksConfig.disabled, so Gemini CLI skips it; remove it there", f))
		}
	}
	if off != "" {
		ps = append([]string{fmt.Sprintf("Gemini CLI runs no hooks: %s sets hooksConfig.enabled to false; remove it there, or set it to true in a file read after it", off)}, ps...)
	}
	return ps
}

// readGeminiSettings reads a Gemini CLI settings file, if it is there and
// is JSON.
func readGeminiSettings(path string) (geminiSettings, bool) {
	var s geminiSettings
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &s) != nil {
		return s, false
	}
	return s, true
}

// geminiSystemSettingsPath is the system's settings file, which overrides
// every other.
func geminiSystemSettingsPath() string {
	if p := os.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); p != "" {
		return p
	}
	return filepath.Join(geminiSystemDir, "settings.json")
}

// geminiSystemDefaultsPath is the system's defaults, which every other
// settings file overrides.
func geminiSystemDefaultsPath() string {
	if p := os.Getenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH"); p != "" {
		return p
	}
	return filepath.Join(filepath.Dir(geminiSystemSettingsPath()), "system-defaults.json")
}
