package hooks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Codex runs a hook only when it trusts it: a project's .codex folder is
// loaded only once the user has trusted the project, and each hook that
// is not managed by an administrator runs only once the user has trusted
// it by its content hash (editing it untrusts it). Untrusted hooks are
// skipped without a word, so installed hooks may gate nothing. Codex
// keeps that trust in the user's config.toml; leasegate asks Codex's own
// app server what it trusts rather than reading or recomputing it.

// CodexTrust is what Codex says of a hooks file of leasegate's.
type CodexTrust struct {
	// Root is the project; HooksFile the hooks file asked about.
	Root, HooksFile string
	// ProjectHooks: the hooks file is the project's, which Codex loads
	// only in a trusted project.
	ProjectHooks bool
	// ProjectTrusted: Codex loads the project's .codex folder.
	ProjectTrusted bool
	// ProjectReason is Codex's own explanation when it does not.
	ProjectReason string
	// Hooks are leasegate's handlers of HooksFile as Codex lists them
	// (none when Codex does not load the file).
	Hooks []CodexHook
	// ConfigFile is where Codex keeps the user's trust.
	ConfigFile string
	// Unverified: read from ConfigFile without Codex, which alone can
	// check each hook's hash against its content.
	Unverified bool
	// user is the user's config as Codex read it (nil when unverified):
	// TrustCodex tells from it which tables it makes.
	user map[string]any
}

// CodexHook is one hook handler as Codex's hooks/list reports it.
type CodexHook struct {
	Key         string `json:"key"`
	Event       string `json:"eventName"`
	Matcher     string `json:"matcher"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	Enabled     bool   `json:"enabled"`
	CurrentHash string `json:"currentHash"`
	// TrustStatus is managed, trusted, untrusted or modified.
	TrustStatus string `json:"trustStatus"`
}

// Runs reports whether Codex runs the hook.
func (h CodexHook) Runs() bool {
	return h.Enabled && (h.TrustStatus == "trusted" || h.TrustStatus == "managed")
}

// Ready reports whether Codex runs every one of leasegate's hooks: want
// is how many install wrote.
func (t CodexTrust) Ready(want int) bool {
	if t.ProjectHooks && !t.ProjectTrusted || len(t.Hooks) < want {
		return false
	}
	for _, h := range t.Hooks {
		if !h.Runs() {
			return false
		}
	}
	return true
}

// Problem says what keeps Codex from running leasegate's hooks and the
// one step that fixes it; "" when nothing does.
func (t CodexTrust) Problem(want int) string {
	if t.Ready(want) {
		return ""
	}
	manual := fmt.Sprintf("start `codex` in %s once and trust the folder when it asks, then trust leasegate's hooks when Codex says hooks need review (/hooks lists them)", t.Root)
	offer := "; or let leasegate record both trusts in " + t.ConfigFile + ": `leasegate install codex --trust`"
	if t.ProjectHooks && !t.ProjectTrusted {
		return fmt.Sprintf("Codex does not trust the project %s, so it skips %s without a word (%s: %q). Step: %s%s",
			t.Root, t.HooksFile, t.source(), t.ProjectReason, manual, offer)
	}
	var off []string
	for _, h := range t.Hooks {
		if !h.Runs() {
			off = append(off, h.label())
		}
	}
	skipped := len(off)
	if missing := want - len(t.Hooks); missing > 0 {
		skipped += missing
		off = append(off, fmt.Sprintf("%d hook(s) Codex does not list, so it does not read them from %s "+
			"(run `leasegate install codex` again; with --user, install in the shell whose CODEX_HOME Codex runs with)", missing, t.HooksFile))
	}
	return fmt.Sprintf("Codex skips %d of leasegate's hooks in %s without a word (%s): %s. Step: start `codex` in %s and trust them when Codex says hooks need review (/hooks lists them)%s",
		skipped, t.HooksFile, t.source(), strings.Join(off, ", "), t.Root, offer)
}

// what names the hook by its event and matcher.
func (h CodexHook) what() string {
	if h.Matcher == "" {
		return h.Event
	}
	return h.Event + " " + h.Matcher
}

// source says where the answer comes from.
func (t CodexTrust) source() string {
	if t.Unverified {
		return "read from " + t.ConfigFile + " without codex, hashes not checked"
	}
	return "Codex"
}

// label is what, with why Codex skips it.
func (h CodexHook) label() string {
	what := h.what()
	if !h.Enabled {
		return what + " (disabled)"
	}
	return what + " (" + h.TrustStatus + ")"
}

// CodexTrustOf asks Codex (AskCodexTrust), or, when no codex program can
// be run, reads the trust recorded in Codex's config
// (CodexTrustFromConfig).
func CodexTrustOf(ctx context.Context, codex, root, hooksFile string) (CodexTrust, error) {
	t, err := AskCodexTrust(ctx, codex, root, hooksFile)
	if errors.Is(err, ErrCodexMissing) {
		return CodexTrustFromConfig(root, hooksFile)
	}
	return t, err
}

// Verdict says, when nothing keeps Codex from running the hooks, that it
// runs them and on what evidence.
func (t CodexTrust) Verdict() string {
	if t.Unverified {
		return fmt.Sprintf("%s records trust of the project and all %d hooks (read without codex: their hashes are not checked; `leasegate doctor --codex PROGRAM` asks Codex itself)", t.ConfigFile, len(t.Hooks))
	}
	return fmt.Sprintf("Codex trusts the project and all %d hooks: they run", len(t.Hooks))
}

// AskCodexTrust asks the codex program (a name looked up in PATH, or a
// path) whether it runs leasegate's hooks of hooksFile in the project
// root.
func AskCodexTrust(ctx context.Context, codex, root, hooksFile string) (CodexTrust, error) {
	ctx, cancel := context.WithTimeout(ctx, codexAskTimeout)
	defer cancel()
	app, err := startCodexApp(ctx, codex, root)
	if err != nil {
		return CodexTrust{}, err
	}
	defer app.close()
	return app.trust(root, hooksFile)
}

func (a *codexApp) trust(root, hooksFile string) (CodexTrust, error) {
	t := CodexTrust{Root: root, HooksFile: hooksFile, ProjectHooks: samePath(filepath.Dir(hooksFile), filepath.Join(root, ".codex"))}
	layers, err := a.layers(root)
	if err != nil {
		return t, err
	}
	t.ProjectReason = "it found no project layer for " + filepath.Join(root, ".codex")
	for _, l := range layers {
		switch {
		case l.Name.Type == "user":
			t.ConfigFile, t.user = l.Name.File, l.Config
		case l.Name.Type == "project" && samePath(l.Name.DotCodexFolder, filepath.Join(root, ".codex")):
			t.ProjectTrusted, t.ProjectReason = l.DisabledReason == "", l.DisabledReason
		}
	}
	var list struct {
		Data []struct {
			Hooks []CodexHook `json:"hooks"`
		} `json:"data"`
	}
	if err := a.call("hooks/list", map[string]any{"cwds": []string{root}}, &list); err != nil {
		return t, err
	}
	for _, d := range list.Data {
		for _, h := range d.Hooks {
			if samePath(h.SourcePath, hooksFile) && isOursCommand(Codex, h.Command, nil) {
				t.Hooks = append(t.Hooks, h)
			}
		}
	}
	return t, nil
}

// samePath compares two absolute paths, symbolic links resolved where
// they can be.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return filepath.Clean(a) == filepath.Clean(b) || resolved(a) == resolved(b)
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// TrustCodex records, through Codex's own app server, the user's trust
// of the project root (when the hooks are the project's) and of each of
// leasegate's hooks in hooksFile, by the hash Codex computes. It returns
// what it wrote, one line each, and what Codex says afterwards.
func TrustCodex(ctx context.Context, codex, root, hooksFile string) ([]string, CodexTrust, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*codexAskTimeout)
	defer cancel()
	t, err := AskCodexTrust(ctx, codex, root, hooksFile)
	if err != nil {
		return nil, t, err
	}
	var did []string
	if t.ProjectHooks && !t.ProjectTrusted {
		e := codexTrustEntry{Table: "projects", Name: root, Leaf: "trust_level", Value: "trusted", What: "the project " + root}
		if err := t.write(ctx, codex, e); err != nil {
			return did, t, err
		}
		did = append(did, fmt.Sprintf("trusted the project %s for Codex: wrote %s = \"trusted\" to %s", root, e.keyPath(), t.ConfigFile))
		if t, err = AskCodexTrust(ctx, codex, root, hooksFile); err != nil {
			return did, t, err
		}
	}
	for _, h := range t.Hooks {
		if h.Runs() || !h.Enabled {
			continue
		}
		e := codexTrustEntry{Table: "hooks.state", Name: h.Key, Leaf: "trusted_hash", Value: h.CurrentHash, What: "leasegate's Codex hook " + h.what()}
		if err := t.write(ctx, codex, e); err != nil {
			return did, t, err
		}
		did = append(did, fmt.Sprintf("trusted leasegate's Codex hook %s (it was %s): wrote %s = %q to %s", h.what(), h.TrustStatus, e.keyPath(), h.CurrentHash, t.ConfigFile))
	}
	t, err = AskCodexTrust(ctx, codex, root, hooksFile)
	return did, t, err
}

// write sets e's value in the user's Codex config through Codex's app
// server, which keeps the rest of the file as it is, and records that it
// did, so that uninstall removes it (UntrustCodex).
func (t CodexTrust) write(ctx context.Context, codex string, e codexTrustEntry) error {
	app, err := startCodexApp(ctx, codex, t.Root)
	if err != nil {
		return err
	}
	defer app.close()
	_, had := lookupTOML(t.user, e.segments()[:len(e.segments())-1])
	e.CreatedTable = !had
	edit := map[string]any{"keyPath": e.keyPath(), "mergeStrategy": "upsert", "value": e.Value}
	if err := app.call("config/batchWrite", map[string]any{"edits": []any{edit}}, nil); err != nil {
		return err
	}
	if err := noteCodexTrust(t.HooksFile, t.ConfigFile, e); err != nil {
		return fmt.Errorf("wrote %s to %s, but could not record it for uninstall: %w", e.keyPath(), t.ConfigFile, err)
	}
	return nil
}

// tomlQuote quotes one segment of a Codex config key path.
func tomlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
