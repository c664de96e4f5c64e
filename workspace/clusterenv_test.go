package workspace_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

// TestClusterFromEnv: LEASEGATE_CLUSTER replaces leasegate.json's cluster
// whole, "none" removes it, and unset or empty leaves the file's; the
// workspace says which ledger that is and what named it.
func TestClusterFromEnv(t *testing.T) {
	const file = `{"cluster": {"endpoints": ["http://10.0.0.5:2379"], "workspace": "from-file"}, "pairs": []}`
	tests := []struct {
		name, file, env string
		wantWorkspace   string // "" for the file in the state directory
		wantEndpoints   []string
		wantFrom        string
	}{
		{name: "unset, file names one", file: file, wantWorkspace: "from-file",
			wantEndpoints: []string{"http://10.0.0.5:2379"}, wantFrom: workspace.ConfigFile},
		{name: "unset, no file", wantFrom: ""},
		{name: "blank is unset", file: file, env: "  ", wantWorkspace: "from-file",
			wantEndpoints: []string{"http://10.0.0.5:2379"}, wantFrom: workspace.ConfigFile},
		{name: "replaces the file's", file: file,
			env:           `{"endpoints": ["https://b:2379", "https://a:2379"], "workspace": "acme/web", "session_ttl": "4s"}`,
			wantWorkspace: "acme/web", wantEndpoints: []string{"https://a:2379", "https://b:2379"}, wantFrom: envname.Cluster},
		{name: "names one without a file", env: `{"endpoints": ["http://e:2379"], "workspace": "acme/web"}`,
			wantWorkspace: "acme/web", wantEndpoints: []string{"http://e:2379"}, wantFrom: envname.Cluster},
		{name: "none removes the file's", file: file, env: "none", wantFrom: envname.Cluster},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envname.Cluster, tt.env)
			root := mustRepo(t)
			if tt.file != "" {
				mustWrite(t, root, workspace.ConfigFile, tt.file)
			}
			w := mustFind(t, root)
			l := w.Ledger()
			if l.Workspace != tt.wantWorkspace || !slices.Equal(l.Endpoints, tt.wantEndpoints) || l.From != tt.wantFrom {
				t.Errorf("Ledger() = %+v, want workspace %q on %v from %q", l, tt.wantWorkspace, tt.wantEndpoints, tt.wantFrom)
			}
			if !l.Shared() && l.File != w.LedgerPath() {
				t.Errorf("Ledger().File = %q, want %q", l.File, w.LedgerPath())
			}
			if tt.file != "" && len(w.Config.Pairs) != 0 {
				t.Errorf("Config.Pairs = %q, want the file's (none): the variable replaces only the cluster", w.Config.Pairs)
			}
		})
	}
}

// TestClusterFromEnvInvalid: an invalid LEASEGATE_CLUSTER is a
// *ConfigError naming the variable and what is wrong, whatever the file
// says, and the workspace is not found on it.
func TestClusterFromEnvInvalid(t *testing.T) {
	tests := []struct {
		name, env, want string
	}{
		{name: "not JSON", env: "http://10.0.0.5:2379", want: `want none or a JSON object`},
		{name: "malformed JSON", env: `{"endpoints": [`, want: "invalid JSON"},
		{name: "unknown field", env: `{"endpoint": ["http://e:2379"], "workspace": "w"}`, want: `unknown field "endpoint"`},
		{name: "wrong type", env: `{"endpoints": "http://e:2379", "workspace": "w"}`, want: `field "endpoints"`},
		{name: "no endpoints", env: `{"workspace": "w"}`, want: "cluster.endpoints: want at least one"},
		{name: "not a URL", env: `{"endpoints": ["e:2379"], "workspace": "w"}`, want: `cluster.endpoints[0]: "e:2379"`},
		{name: "no workspace", env: `{"endpoints": ["http://e:2379"]}`, want: "cluster.workspace"},
		{name: "short TTL", env: `{"endpoints": ["http://e:2379"], "workspace": "w", "session_ttl": "1s"}`, want: "cluster.session_ttl"},
		{name: "trailing data", env: `{"endpoints": ["http://e:2379"], "workspace": "w"} x`, want: "unexpected data"},
		{name: "null", env: `null`, want: "want none or a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envname.Cluster, tt.env)
			root := mustRepo(t)
			_, err := workspace.LoadEffectiveConfig(root)
			var ce *workspace.ConfigError
			if !errors.As(err, &ce) || ce.Path != envname.Cluster || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadEffectiveConfig() with %s=%s = %v, want a ConfigError of %s saying %q", envname.Cluster, tt.env, err, envname.Cluster, tt.want)
			}
			if !strings.HasPrefix(err.Error(), envname.Cluster+": ") {
				t.Errorf("error %q does not start with the variable's name", err)
			}
			if _, err := workspace.Find(root); !errors.As(err, &ce) {
				t.Errorf("Find() = %v, want the ConfigError", err)
			}
		})
	}
}
