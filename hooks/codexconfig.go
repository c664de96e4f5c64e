package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
)

// CodexTrustFromConfig reads the trust the user gave Codex from Codex's
// own store, $CODEX_HOME/config.toml (default ~/.codex/config.toml), for
// when the codex program cannot be asked. It finds the project's
// trust_level and each of leasegate's hooks' recorded trusted_hash under
// the key Codex files it by (hooks file:event:group:handler). It cannot
// check the hash, which Codex computes from its own normal form: a hook
// edited after it was trusted still reads as trusted, so the answer says
// it is unverified.
func CodexTrustFromConfig(root, hooksFile string) (CodexTrust, error) {
	home := os.Getenv("CODEX_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return CodexTrust{}, err
		}
		home = filepath.Join(h, ".codex")
	}
	t := CodexTrust{Root: root, HooksFile: hooksFile, ConfigFile: filepath.Join(home, "config.toml"), Unverified: true,
		ProjectHooks: samePath(filepath.Dir(hooksFile), filepath.Join(root, ".codex"))}
	var cfg struct {
		Projects map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
		Hooks struct {
			State map[string]struct {
				Enabled     *bool  `toml:"enabled"`
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.DecodeFile(t.ConfigFile, &cfg); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return t, fmt.Errorf("reading Codex's config: %w", err)
	}
	t.ProjectReason = "no trust_level = \"trusted\" for it in " + t.ConfigFile
	for dir, p := range cfg.Projects {
		if samePath(dir, root) && p.TrustLevel == "trusted" {
			t.ProjectTrusted, t.ProjectReason = true, ""
		}
	}
	keys, err := codexHookKeys(hooksFile)
	if err != nil {
		return t, err
	}
	for _, k := range keys {
		h := CodexHook{Key: k.key, Event: k.event, Matcher: k.matcher, SourcePath: hooksFile, Enabled: true, TrustStatus: "untrusted"}
		if st, ok := cfg.Hooks.State[k.key]; ok {
			h.Enabled = st.Enabled == nil || *st.Enabled
			if st.TrustedHash != "" {
				h.TrustStatus = "trusted"
			}
		}
		t.Hooks = append(t.Hooks, h)
	}
	return t, nil
}

// codexKey is where Codex files the state of one hook handler.
type codexKey struct{ key, event, matcher string }

// codexHookKeys lists the keys of leasegate's handlers in a Codex hooks
// file: the file, the event in snake case, the group's index in the
// event's list and the handler's in the group.
func codexHookKeys(hooksFile string) ([]codexKey, error) {
	data, err := os.ReadFile(hooksFile)
	if err != nil {
		return nil, err
	}
	root, err := parseText(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hooksFile, err)
	}
	hooks := root.member("hooks")
	if hooks == nil || hooks.kind != '{' {
		return nil, nil
	}
	var out []codexKey
	for _, m := range hooks.members {
		if m.val.kind != '[' {
			continue
		}
		for gi, g := range m.val.elems {
			hs := g.member("hooks")
			if g.kind != '{' || hs == nil || hs.kind != '[' {
				continue
			}
			for hi, h := range hs.elems {
				if isOurs(Codex, data[h.start:h.end]) {
					out = append(out, codexKey{key: fmt.Sprintf("%s:%s:%d:%d", hooksFile, snakeCase(m.key), gi, hi),
						event: m.key, matcher: matcherOf(data[g.start:g.end])})
				}
			}
		}
	}
	return out, nil
}

// snakeCase writes an event name as Codex's keys do: PreToolUse,
// pre_tool_use.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
