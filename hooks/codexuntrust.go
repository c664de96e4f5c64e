package hooks

import (
	"context"
	"fmt"
	"strings"
)

// codexTrustRecord remembers each entry `install codex --trust` wrote to
// the user's Codex config for one hooks file, so that uninstall removes
// those and never a trust the user gave Codex. It lives beside the
// install records, in the user's state directory.
type codexTrustRecord struct {
	Path       string            `json:"path"` // codexTrustKey of the hooks file
	ConfigFile string            `json:"config_file"`
	Entries    []codexTrustEntry `json:"entries"`
}

// codexTrustEntry is one value install wrote: Leaf = Value in the table
// Table."Name" (projects."/w".trust_level = "trusted").
type codexTrustEntry struct {
	Table string `json:"table"` // "projects" or "hooks.state"
	Name  string `json:"name"`  // the project root, or the hook's key
	Leaf  string `json:"leaf"`
	Value string `json:"value"`
	// CreatedTable: the table Table."Name" was not there before install
	// wrote Leaf, so uninstall removes it when Leaf is all it holds.
	CreatedTable bool `json:"created_table"`
	// What names the trusted thing for a person.
	What string `json:"what"`
}

// tablePath is the entry's table as Codex's config/batchWrite takes a key
// path: fixed names plain, the name quoted.
func (e codexTrustEntry) tablePath() string { return e.Table + "." + tomlQuote(e.Name) }

func (e codexTrustEntry) keyPath() string { return e.tablePath() + "." + e.Leaf }

// segments are the entry's key path as the names of nested tables.
func (e codexTrustEntry) segments() []string {
	return append(strings.Split(e.Table, "."), e.Name, e.Leaf)
}

// codexTrustKey names the trust record of hooksFile among the install
// records, which are keyed by the file install wrote.
func codexTrustKey(hooksFile string) string { return "codex-trust:" + hooksFile }

func readCodexTrustRecord(hooksFile string) (codexTrustRecord, bool) {
	key := codexTrustKey(hooksFile)
	var r codexTrustRecord
	if !loadRecord(key, &r) || r.Path != key {
		return codexTrustRecord{Path: key}, false
	}
	return r, true
}

// noteCodexTrust adds e, written to configFile, to the record of
// hooksFile, replacing an entry for the same key.
func noteCodexTrust(hooksFile, configFile string, e codexTrustEntry) error {
	r, _ := readCodexTrustRecord(hooksFile)
	r.ConfigFile = configFile
	for i, o := range r.Entries {
		if o.keyPath() == e.keyPath() {
			e.CreatedTable = e.CreatedTable || o.CreatedTable
			r.Entries = append(r.Entries[:i], r.Entries[i+1:]...)
			break
		}
	}
	r.Entries = append(r.Entries, e)
	return saveRecord(r.Path, r)
}

// LeftoverCodexTrust says what `install codex --trust` wrote to Codex's
// config for hooksFile that uninstall has not removed, or "".
func LeftoverCodexTrust(hooksFile string) string {
	r, ok := readCodexTrustRecord(hooksFile)
	if !ok || len(r.Entries) == 0 {
		return ""
	}
	keys := make([]string, len(r.Entries))
	for i, e := range r.Entries {
		keys[i] = e.keyPath()
	}
	return fmt.Sprintf("`install codex --trust` wrote %s to %s, which `uninstall codex` has not removed; run `leasegate uninstall codex` with the codex program on PATH (or LEASEGATE_CODEX naming it)",
		strings.Join(keys, ", "), r.ConfigFile)
}

// UntrustCodex removes, through Codex's own app server, the trust entries
// `install codex --trust` wrote for hooksFile (TrustCodex), and the tables
// it made for them, saying what it removed; a trust the user gave, or an
// entry changed since install wrote it, stays. With no record it does
// nothing. When Codex cannot be asked the record is kept, so a later
// uninstall (or doctor) still knows what remains.
func UntrustCodex(ctx context.Context, codex, root, hooksFile string) ([]string, error) {
	r, ok := readCodexTrustRecord(hooksFile)
	if !ok || len(r.Entries) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, codexAskTimeout)
	defer cancel()
	app, err := startCodexApp(ctx, codex, root)
	if err != nil {
		return nil, fmt.Errorf("removing the trust `install codex --trust` wrote: %w; %s", err, LeftoverCodexTrust(hooksFile))
	}
	defer app.close()
	user, file, err := app.userLayer(root)
	if err != nil {
		return nil, err
	}
	var edits []any
	var did []string
	for _, e := range r.Entries {
		cur, found := lookupTOML(user, e.segments())
		switch {
		case !found:
			did = append(did, fmt.Sprintf("%s: %s is no longer in %s", e.What, e.keyPath(), file))
			continue
		case cur != e.Value:
			did = append(did, fmt.Sprintf("left %s = %v in %s: it was changed after `install codex --trust` wrote %q", e.keyPath(), cur, file, e.Value))
			continue
		}
		edits = append(edits, clearEdit(e.keyPath()))
		if table, _ := lookupTOML(user, e.segments()[:len(e.segments())-1]); e.CreatedTable && holdsOnly(table, e.Leaf) {
			edits = append(edits, clearEdit(e.tablePath()))
		}
		did = append(did, fmt.Sprintf("removed the trust of %s that `install codex --trust` wrote: %s from %s", e.What, e.keyPath(), file))
	}
	if len(edits) > 0 {
		if err := app.call("config/batchWrite", map[string]any{"edits": edits}, nil); err != nil {
			return nil, fmt.Errorf("removing the trust `install codex --trust` wrote: %w; %s", err, LeftoverCodexTrust(hooksFile))
		}
	}
	dropRecord(r.Path)
	return did, nil
}

// clearEdit is a config/batchWrite edit that removes keyPath: Codex takes
// a null value for removal.
func clearEdit(keyPath string) map[string]any {
	return map[string]any{"keyPath": keyPath, "mergeStrategy": "replace", "value": nil}
}

// codexLayer is one layer of Codex's config as its config/read lists it.
type codexLayer struct {
	Name struct {
		Type           string `json:"type"`
		File           string `json:"file"`
		DotCodexFolder string `json:"dotCodexFolder"`
	} `json:"name"`
	DisabledReason string         `json:"disabledReason"`
	Config         map[string]any `json:"config"`
}

// layers lists the layers of Codex's config for a session in root.
func (a *codexApp) layers(root string) ([]codexLayer, error) {
	var cfg struct {
		Layers []codexLayer `json:"layers"`
	}
	err := a.call("config/read", map[string]any{"cwd": root, "includeLayers": true}, &cfg)
	return cfg.Layers, err
}

// userLayer reads the user's own Codex config, as Codex parsed it, and
// the file it is in.
func (a *codexApp) userLayer(root string) (map[string]any, string, error) {
	layers, err := a.layers(root)
	if err != nil {
		return nil, "", err
	}
	for _, l := range layers {
		if l.Name.Type == "user" {
			return l.Config, l.Name.File, nil
		}
	}
	return nil, "", nil
}

// lookupTOML returns the value at the nested table names path in a
// config decoded from JSON.
func lookupTOML(cfg map[string]any, path []string) (any, bool) {
	var v any = cfg
	for _, name := range path {
		t, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = t[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

// holdsOnly reports whether table is a table whose one key is leaf.
func holdsOnly(table any, leaf string) bool {
	t, ok := table.(map[string]any)
	_, has := t[leaf]
	return ok && len(t) == 1 && has
}
