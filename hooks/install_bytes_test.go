package hooks_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// TestInstallUninstallByteForByte: for each agent's file, in the layouts
// users write (four spaces, tabs, one line, their own hooks on the same
// events, CRLF), install keeps every byte of the user's text and adds
// only its entries, laid out like the file; uninstall gives back the
// exact original bytes.
func TestInstallUninstallByteForByte(t *testing.T) {
	files := map[string]string{
		"four spaces": "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"Stop\": [\n            {\n                \"hooks\": [\n                    {\"type\": \"command\", \"command\": \"notify-send done\"}\n                ]\n            }\n        ]\n    }\n}\n",
		"tabs":        "{\n\t\"permissions\": {\"allow\": [\"Read\"]},\n\t\"hooks\": {}\n}",
		"one line":    `{"env":{"A":"1"},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"audit"}]}]}}`,
		"crlf":        "{\r\n  \"theme\": \"dark\"\r\n}\r\n",
		"empty hooks": "{\n  \"hooks\": {\n  },\n  \"x\": [1, 2]\n}\n",
	}
	for _, a := range hooks.Agents() {
		for name, orig := range files {
			t.Run(string(a)+"/"+name, func(t *testing.T) {
				path := hooks.SettingsPath(a, t.TempDir())
				writeFile(t, path, orig, 0o640)
				if _, err := hooks.Install(a, path, exe); err != nil {
					t.Fatal(err)
				}
				got := readFile(t, path)
				if !json.Valid([]byte(got)) {
					t.Fatalf("install wrote invalid JSON:\n%s", got)
				}
				if !keepsText(orig, got) {
					t.Errorf("install changed the user's text, not only added to it:\n--- before\n%s\n--- after\n%s", orig, got)
				}
				if again, err := hooks.Install(a, path, exe); err != nil || !strings.Contains(again[0], "already installed") || readFile(t, path) != got {
					t.Errorf("a second install = %q, %v; want no change", again, err)
				}
				if _, err := hooks.Uninstall(a, path); err != nil {
					t.Fatal(err)
				}
				if back := readFile(t, path); back != orig {
					t.Errorf("uninstall did not restore the bytes:\n--- want %q\n--- got  %q", orig, back)
				}
			})
		}
	}
}

// keepsText reports whether after holds every byte of before in order,
// with only insertions between them.
func keepsText(before, after string) bool {
	i := 0
	for j := 0; j < len(after) && i < len(before); j++ {
		if after[j] == before[i] {
			i++
		}
	}
	return i == len(before)
}

// TestInstallLayoutFollowsFile: what install adds is indented like the
// file around it.
func TestInstallLayoutFollowsFile(t *testing.T) {
	path := hooks.SettingsPath(hooks.ClaudeCode, t.TempDir())
	writeFile(t, path, "{\n    \"model\": \"opus\"\n}\n", 0o644)
	if _, err := hooks.Install(hooks.ClaudeCode, path, exe); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, path)
	for _, want := range []string{"\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\n                \"matcher\": \"Write|Edit|MultiEdit|NotebookEdit\",\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("install did not follow the file's four-space layout:\n%s", got)
		}
	}
}

// TestUninstallAfterUserEdit: a file the user changed after install
// loses only leasegate's entries; the user's edit and the rest of the
// text stay as they are.
func TestUninstallAfterUserEdit(t *testing.T) {
	orig := "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"Stop\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}\n        ]\n    }\n}\n"
	for _, a := range hooks.Agents() {
		t.Run(string(a), func(t *testing.T) {
			path := hooks.SettingsPath(a, t.TempDir())
			writeFile(t, path, orig, 0o644)
			if _, err := hooks.Install(a, path, exe); err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(readFile(t, path), `"model": "opus",`, `"model": "sonnet",`, 1)
			writeFile(t, path, edited, 0o644)
			if _, err := hooks.Uninstall(a, path); err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(orig, `"model": "opus",`, `"model": "sonnet",`, 1)
			if a == hooks.Cursor { // the version install adds stays: the user may rely on it now
				want = strings.Replace(want, "\n    }\n}", "\n    },\n    \"version\": 1\n}", 1)
			}
			if got := readFile(t, path); got != want {
				t.Errorf("uninstall after an edit:\n--- want\n%s\n--- got\n%s", want, got)
			}
		})
	}
}

// TestUninstallOfCreatedFileSaysOnce: a file install created is removed
// and said so in one line, not first "back to its bytes before install"
// (it had none) and then removed.
func TestUninstallOfCreatedFileSaysOnce(t *testing.T) {
	path := hooks.SettingsPath(hooks.ClaudeCode, t.TempDir())
	if _, err := hooks.Install(hooks.ClaudeCode, path, exe); err != nil {
		t.Fatal(err)
	}
	said, err := hooks.Uninstall(hooks.ClaudeCode, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(said) == 0 || !strings.Contains(said[0], "which install had created for the claude-code hooks") || strings.Contains(strings.Join(said, "\n"), "back to its bytes") {
		t.Errorf("Uninstall of a file install created said %q; want it removed in one line naming what it was for", said)
	}
}
