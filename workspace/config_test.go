package workspace_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

func TestLoadConfigMissingIsDefault(t *testing.T) {
	c, err := workspace.LoadConfig(t.TempDir())
	if err != nil {
		t.Fatalf("LoadConfig(no file) = %v", err)
	}
	if want := workspace.DefaultConfig(); !configEqual(c, want) {
		t.Errorf("LoadConfig(no file) = %+v, want %+v", c, want)
	}
	if !slices.Equal(c.Pairs, gate.DefaultPairRules) || c.GateGitIgnored {
		t.Errorf("defaults = %+v, want gate.DefaultPairRules and GateGitIgnored false", c)
	}
}

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name string
		file string
		want workspace.Config
	}{
		{
			name: "all fields",
			file: `{"include": ["dist/**"], "exclude": ["vendor/**", "*.pb.go"], "pairs": ["src/{name}.ts -> tests/{name}.test.ts"], "gate_git_ignored": true}`,
			want: workspace.Config{Include: []string{"dist/**"}, Exclude: []string{"vendor/**", "*.pb.go"}, Pairs: []string{"src/{name}.ts -> tests/{name}.test.ts"}, GateGitIgnored: true},
		},
		{
			name: "omitted pairs keep the default",
			file: `{"exclude": ["vendor/**"]}`,
			want: workspace.Config{Exclude: []string{"vendor/**"}, Pairs: gate.DefaultPairRules},
		},
		{
			name: "empty pairs pair nothing",
			file: `{"pairs": []}`,
			want: workspace.Config{Pairs: []string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			mustWrite(t, root, workspace.ConfigFile, tt.file)
			c, err := workspace.LoadConfig(root)
			if err != nil {
				t.Fatalf("LoadConfig(%s) = %v", tt.file, err)
			}
			if !configEqual(c, tt.want) {
				t.Errorf("LoadConfig(%s) = %+v, want %+v", tt.file, c, tt.want)
			}
		})
	}
}

func configEqual(a, b workspace.Config) bool {
	return slices.Equal(a.Include, b.Include) && slices.Equal(a.Exclude, b.Exclude) &&
		slices.Equal(a.Pairs, b.Pairs) && a.GateGitIgnored == b.GateGitIgnored
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // substrings of the error besides the file name
	}{
		{name: "unknown field", file: `{"exclude": [], "gate_ignored": true}`, want: []string{`unknown field "gate_ignored"`}},
		{name: "dir glob not clean", file: `{"include": ["a/**", "build/"]}`, want: []string{"include[1]", `"build/**"`}},
		{name: "dotted glob", file: `{"exclude": ["./vendor/**"]}`, want: []string{"exclude[0]", `"vendor/**"`}},
		{name: "absolute glob", file: `{"exclude": ["/etc/**"]}`, want: []string{"exclude[0]", "absolute"}},
		{name: "escaping glob", file: `{"include": ["../x"]}`, want: []string{"include[0]", "escapes"}},
		{name: "pair without arrow", file: `{"pairs": ["a.go"]}`, want: []string{"pairs[0]", "FROM -> TO"}},
		{name: "pair without name", file: `{"pairs": ["**/{name}.go -> **/{name}_test.go", "a.go -> b.go"]}`, want: []string{"pairs[1]", "{name}"}},
		{name: "wrong type", file: `{"include": "dist/**"}`, want: []string{`field "include"`}},
		{name: "cluster without endpoints", file: `{"cluster": {"workspace": "w"}}`, want: []string{"cluster.endpoints"}},
		{name: "cluster endpoint not a URL", file: `{"cluster": {"endpoints": ["10.0.0.5:2379"], "workspace": "w"}}`, want: []string{"cluster.endpoints[0]", "http://"}},
		{name: "cluster without name", file: `{"cluster": {"endpoints": ["http://10.0.0.5:2379"]}}`, want: []string{"cluster.workspace"}},
		{name: "cluster name among another's keys", file: `{"cluster": {"endpoints": ["http://10.0.0.5:2379"], "workspace": "acme/members"}}`, want: []string{"cluster.workspace", `part named "members"`}},
		{name: "cluster name with an empty part", file: `{"cluster": {"endpoints": ["http://10.0.0.5:2379"], "workspace": "acme//web"}}`, want: []string{"cluster.workspace", "empty"}},
		{name: "cluster name with a dot-dot part", file: `{"cluster": {"endpoints": ["http://10.0.0.5:2379"], "workspace": "acme/../web"}}`, want: []string{"cluster.workspace", `".."`}},
		{name: "cluster session TTL", file: `{"cluster": {"endpoints": ["http://10.0.0.5:2379"], "workspace": "w", "session_ttl": "500ms"}}`, want: []string{"cluster.session_ttl", "at least 2s"}},
		{name: "syntax", file: `{"include": [}`, want: []string{"invalid JSON"}},
		{name: "trailing data", file: `{} {}`, want: []string{"after the JSON object"}},
		{name: "empty", file: ``, want: []string{"empty file"}},
		{name: "several at once", file: `{"include": ["a/"], "exclude": ["/b"]}`, want: []string{"include[0]", "exclude[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			mustWrite(t, root, workspace.ConfigFile, tt.file)
			_, err := workspace.LoadConfig(root)
			if err == nil {
				t.Fatalf("LoadConfig(%s) = nil error, want one", tt.file)
			}
			for _, s := range append(tt.want, workspace.ConfigFile) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("LoadConfig(%s) = %q, want it to contain %q", tt.file, err, s)
				}
			}
		})
	}
}

func TestPairRules(t *testing.T) {
	c := workspace.DefaultConfig()
	rules, err := c.PairRules()
	if err != nil {
		t.Fatalf("PairRules() = %v", err)
	}
	got := gate.ExpandPairs([]string{"src/a.go"}, rules)
	if want := []string{"src/a.go", "src/a_test.go"}; !slices.Equal(got, want) {
		t.Errorf("ExpandPairs(default rules) = %q, want %q", got, want)
	}
}
