package workspace

import (
	"fmt"
	"strings"
)

// Describe is the effective rule in a few lines, for `leasegate status`.
func (r *Rule) Describe() string {
	var b strings.Builder
	w, cfg := r.ws, r.st.Load().cfg
	kind := "git checkout"
	if w.GitDir == "" {
		kind = "not a git checkout"
	}
	fmt.Fprintf(&b, "workspace: %s (%s)\n", w.Root, kind)
	fmt.Fprintf(&b, "state: %s (workers may never write it)\n", w.StateDir)
	if w.Submodule != "" {
		fmt.Fprintf(&b, "joined: started in the %s %s, whose files this workspace gates with the rest of the tree (one coordinator, paths from %s)\n", w.Nested, w.Submodule, w.Root)
	}
	switch {
	case w.GitDir == "":
		b.WriteString("gated: every path under the root\n")
	case cfg.GateGitIgnored:
		b.WriteString("gated: every path under the root, ignored by git or not\n")
		b.WriteString("not gated: .git/, a nested repository's too (git serializes itself)\n")
	default:
		b.WriteString("gated: every path under the root that git tracks or does not ignore\n")
		b.WriteString("not gated: .git/, a nested repository's too (git serializes itself); paths git ignores (.gitignore, info/exclude, core.excludesFile)\n")
	}
	writeList(&b, "include (gated even if ignored)", cfg.Include)
	writeList(&b, "exclude (never gated)", cfg.Exclude)
	writeList(&b, "pairs", cfg.Pairs)
	return b.String()
}

func writeList(b *strings.Builder, label string, items []string) {
	if len(items) == 0 {
		return
	}
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	fmt.Fprintf(b, "%s: %s\n", label, strings.Join(quoted, ", "))
}
