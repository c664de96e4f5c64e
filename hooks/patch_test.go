package hooks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

func TestParsePatch(t *testing.T) {
	tests := []struct {
		name    string
		patch   string
		want    []hooks.PatchFile
		paths   []string
		wantErr string
	}{
		{
			name:  "add update delete",
			patch: "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** Update File: src/b.go\n@@\n-x\n+y\n*** Delete File: c.md\n*** End Patch\n",
			want:  []hooks.PatchFile{{Op: hooks.PatchAdd, Path: "a.txt"}, {Op: hooks.PatchUpdate, Path: "src/b.go"}, {Op: hooks.PatchDelete, Path: "c.md"}},
			paths: []string{"a.txt", "src/b.go", "c.md"},
		},
		{
			name:  "move takes both names",
			patch: "*** Begin Patch\n*** Update File: old/name.go\n*** Move to: new/name.go\n@@\n-a\n+b\n*** End Patch",
			want:  []hooks.PatchFile{{Op: hooks.PatchUpdate, Path: "old/name.go", MoveTo: "new/name.go"}},
			paths: []string{"old/name.go", "new/name.go"},
		},
		{
			name:  "crlf and spaces in names",
			patch: "*** Begin Patch\r\n*** Add File:  dir/with space.txt \r\n+x\r\n*** End Patch\r\n",
			want:  []hooks.PatchFile{{Op: hooks.PatchAdd, Path: "dir/with space.txt"}},
			paths: []string{"dir/with space.txt"},
		},
		{
			name:  "heredoc around the envelope",
			patch: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: ../outside.txt\n@@\n-a\n+b\n*** End Patch\nEOF\n",
			want:  []hooks.PatchFile{{Op: hooks.PatchUpdate, Path: "../outside.txt"}},
			paths: []string{"../outside.txt"},
		},
		{
			name:  "markers inside content are content",
			patch: "*** Begin Patch\n*** Add File: doc.md\n+*** Delete File: not-a-marker\n+ *** Add File: nor-this\n*** End Patch\n",
			want:  []hooks.PatchFile{{Op: hooks.PatchAdd, Path: "doc.md"}},
			paths: []string{"doc.md"},
		},
		{
			name:  "a file named twice is one path",
			patch: "*** Begin Patch\n*** Update File: a.go\n@@\n-a\n+b\n*** Update File: a.go\n@@\n-c\n+d\n*** End Patch\n",
			want:  []hooks.PatchFile{{Op: hooks.PatchUpdate, Path: "a.go"}, {Op: hooks.PatchUpdate, Path: "a.go"}},
			paths: []string{"a.go"},
		},
		{name: "no files", patch: "*** Begin Patch\n*** End Patch\n", wantErr: hooks.ErrNoFiles.Error()},
		{name: "not a patch", patch: "ls -la", wantErr: hooks.ErrNoFiles.Error()},
		{name: "move without update", patch: "*** Begin Patch\n*** Add File: a\n+x\n*** Move to: b\n*** End Patch", wantErr: "line 4: \"*** Move to: b\" does not follow an *** Update File: line"},
		{name: "two moves", patch: "*** Update File: a\n*** Move to: b\n*** Move to: c\n", wantErr: "line 3: \"*** Move to: c\" does not follow an *** Update File: line"},
		{name: "empty path", patch: "*** Begin Patch\n*** Delete File: \n*** End Patch", wantErr: "line 2: \"*** Delete File:\" names no path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := hooks.ParsePatch(tt.patch)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParsePatch() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePatch() error = %v", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ParsePatch() = %+v, want %+v", got, tt.want)
			}
			if paths := hooks.PatchPaths(got); !slices.Equal(paths, tt.paths) {
				t.Errorf("PatchPaths() = %q, want %q", paths, tt.paths)
			}
		})
	}
}
