package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/gate"
)

// Rule classifies workspace-relative paths: which mutations pass the lease
// gate. Verdicts are cached until Invalidate or a Follow that changes the
// rule. A Rule is safe for concurrent use; Close ends its git process.
type Rule struct {
	ws     *Workspace
	logger hclog.Logger
	// st is what leasegate.json says, swapped whole by Follow, so that a
	// decision reads one rule.
	st       atomic.Pointer[ruleState]
	followMu sync.Mutex // one Follow at a time
	cache    *verdictCache
	// fold compares the include and exclude globs with paths as the
	// volume compares names (Workspace.Folding), as git does with
	// core.ignorecase there: a glob spelt "vendor/**" excludes what a
	// writer spells "Vendor/x.go", the same directory.
	fold gate.Folding
}

// ruleState is the part of the rule leasegate.json sets, with the file
// as it was read (nil when there was none).
type ruleState struct {
	cfg      Config
	whyGated string
	ignore   *ignoreChecker // nil when git's ignore rules are not consulted
	file     os.FileInfo
}

// NewRule returns the rule of w and its Config. It starts no process: the
// git check-ignore process starts with the first question that needs it.
// A nil logger means no logging.
func NewRule(w *Workspace, logger hclog.Logger) (*Rule, error) {
	if err := w.Config.Validate(); err != nil {
		return nil, fmt.Errorf("workspace rule: %w", err)
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	r := &Rule{ws: w, logger: logger, cache: newVerdictCache(), fold: w.Folding()}
	file, _ := os.Stat(filepath.Join(w.Root, ConfigFile))
	r.st.Store(r.newState(w.Config, file, nil))
	return r, nil
}

// newState is the rule of cfg; it keeps was's git process when git's
// ignore rules are still consulted.
func (r *Rule) newState(cfg Config, file os.FileInfo, was *ruleState) *ruleState {
	st := &ruleState{cfg: cfg, whyGated: whyGated(r.ws, cfg), file: file}
	switch {
	case r.ws.GitDir == "" || cfg.GateGitIgnored:
	case was != nil && was.ignore != nil:
		st.ignore = was.ignore
	default:
		st.ignore = &ignoreChecker{root: r.ws.Root, gitDir: r.ws.GitDir, logger: r.logger.Named("workspace")}
	}
	return st
}

// Follow reads leasegate.json again when it is another file or was
// written since the rule read it, and takes what it says is gated
// (include, exclude, gate_git_ignored), so that a running gate follows the
// operator's edit. It reports whether the rule changed. A file that does
// not load leaves the rule as it was and is returned as the error (every
// command refuses it until it is mended).
func (r *Rule) Follow() (bool, error) {
	r.followMu.Lock()
	defer r.followMu.Unlock()
	was := r.st.Load()
	file, err := os.Stat(filepath.Join(r.ws.Root, ConfigFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if sameConfigFile(file, was.file) {
		return false, nil
	}
	cfg, err := LoadEffectiveConfig(r.ws.Root)
	if err != nil {
		st := *was
		st.file = file
		r.st.Store(&st)
		return false, err
	}
	if slices.Equal(cfg.Include, was.cfg.Include) && slices.Equal(cfg.Exclude, was.cfg.Exclude) && cfg.GateGitIgnored == was.cfg.GateGitIgnored {
		st := *was
		st.file, st.cfg = file, cfg
		r.st.Store(&st)
		return false, nil
	}
	st := r.newState(cfg, file, was)
	r.st.Store(st)
	r.cache.reset()
	if was.ignore != nil && st.ignore != was.ignore {
		was.ignore.close()
	}
	return true, nil
}

// whyGated is the reason a path no other rule catches is gated.
func whyGated(w *Workspace, cfg Config) string {
	switch {
	case w.GitDir == "":
		return "gated: inside the workspace (not a git checkout)"
	case cfg.GateGitIgnored:
		return "gated: inside the workspace (gate_git_ignored is set)"
	}
	return "gated: tracked or untracked, not ignored"
}

// Classify returns the class of rel, a clean workspace-relative path as
// Rel returns it, for a mutation of that one file (or link, or empty
// directory). A path that is not clean is Outside.
func (r *Rule) Classify(rel string) Class { return r.lookup(false, rel).class }

// ClassifyTree returns the class of rel for a mutation of rel and all
// beneath it (a directory rename or removal): Gated if the subtree may hold
// gated files. Renaming an ignored build/ is not gated; renaming src/ is.
func (r *Rule) ClassifyTree(rel string) Class { return r.lookup(true, rel).class }

// Explain is Classify with the reason, for `leasegate status`.
func (r *Rule) Explain(rel string) (Class, string) {
	v := r.lookup(false, rel)
	return v.class, v.why
}

// ExplainTree is ClassifyTree with the reason.
func (r *Rule) ExplainTree(rel string) (Class, string) {
	v := r.lookup(true, rel)
	return v.class, v.why
}

// Invalidate forgets every verdict and restarts git, which rereads the
// ignore files and the index. Call it after a .gitignore, info/exclude or
// the index changes (Workspace.AffectsIgnore).
func (r *Rule) Invalidate() {
	if st := r.st.Load(); st.ignore != nil {
		st.ignore.reset()
	}
	r.cache.reset()
}

// Close ends the git process. Cached verdicts still answer afterwards;
// anything else that would need git is Gated.
func (r *Rule) Close() error {
	if st := r.st.Load(); st.ignore != nil {
		st.ignore.close()
	}
	return nil
}

func (r *Rule) lookup(tree bool, rel string) ruling {
	v, gen, ok := r.cache.get(tree, rel)
	if ok {
		return v
	}
	if !validRel(rel) {
		return ruling{class: Outside, why: "outside: not a clean path inside the workspace"}
	}
	// The rule is read after the cache's generation: a Follow that swaps
	// it in between resets the cache, so this verdict is not kept.
	v = r.decide(r.st.Load(), gen, tree, rel)
	r.cache.put(gen, tree, rel, v)
	return v
}

func validRel(rel string) bool {
	if rel == "." {
		return true
	}
	clean, err := gate.CleanPath(gate.Literal(rel))
	return err == nil && gate.Unescape(clean) == rel
}

// decide applies the rule in its order: state dir, root, operator file,
// .git, exclude, include, git-ignored, gated.
func (r *Rule) decide(st *ruleState, gen uint64, tree bool, rel string) ruling {
	if v, ok := r.fixed(st, tree, rel); ok {
		return v
	}
	if g, ok := r.included(st, tree, rel); ok {
		return ruling{class: Gated, why: fmt.Sprintf("gated: matches include %q in %s", g, ConfigFile)}
	}
	if st.ignore == nil {
		return ruling{class: Gated, why: st.whyGated}
	}
	return r.askGit(st, gen, tree, rel)
}

// fixed applies the rules that need neither git nor include globs: where
// rel lies (Workspace.Locate), then the exclude globs.
func (r *Rule) fixed(st *ruleState, tree bool, rel string) (ruling, bool) {
	reach := ReachFile
	if tree {
		reach = ReachTree
	}
	if c, why := r.ws.place(reach, rel, filepath.Join(r.ws.Root, rel)); c != Gated {
		return ruling{class: c, why: why}, true
	}
	if g, ok := r.excluded(st, tree, rel); ok {
		return ruling{class: Excluded, why: fmt.Sprintf("excluded by %q in %s", g, ConfigFile)}, true
	}
	return ruling{}, false
}

// excluded finds the exclude glob covering rel (a name, taken literally:
// a file named "*" is not every file) or, for a tree, everything beneath
// rel: a glob ending in "**" that matches the directory matches all
// of its subtree.
func (r *Rule) excluded(st *ruleState, tree bool, rel string) (string, bool) {
	for _, g := range st.cfg.Exclude {
		if tree && g != "**" && !strings.HasSuffix(g, "/**") {
			continue
		}
		if r.fold.Match(g, gate.Literal(rel)) {
			return g, true
		}
	}
	return "", false
}

// included finds the include glob matching rel or, for a tree, something
// beneath it.
func (r *Rule) included(st *ruleState, tree bool, rel string) (string, bool) {
	for _, g := range st.cfg.Include {
		if (tree && r.fold.Overlap(g, gate.Subtree(rel))) || (!tree && r.fold.Match(g, gate.Literal(rel))) {
			return g, true
		}
	}
	return "", false
}

const whyBlind = "gated: git cannot check ignore rules here (beyond a symlink, a name git reads as pathspec magic, or git unavailable)"

// askGit decides by git's ignore rules. Everything beneath an ignored
// directory is ignored (git cannot re-include it), so a directory's verdict,
// cached, answers for its contents; git is asked only below directories it
// does not ignore. A tracked file, or a directory holding one, is gated
// even where a pattern ignores it.
func (r *Rule) askGit(st *ruleState, gen uint64, tree bool, rel string) ruling {
	parent := r.lookup(true, parentOf(rel))
	switch {
	case parent.class == Ignored:
		return ruling{class: Ignored, why: parent.why}
	case parent.blind:
		return ruling{class: Gated, blind: tree, why: whyBlind}
	}
	q := rel
	if tree {
		q += "/" // a directory even if it does not exist yet
	}
	ans := st.ignore.check(q)
	switch {
	case ans.blind:
		if ans.linked && !tree {
			r.cache.markBlind(gen, parentOf(rel))
		}
		return ruling{class: Gated, blind: tree && ans.linked, why: whyBlind}
	case ans.ignored && ans.tracked:
		return ruling{class: Gated, why: "gated: tracked, though ignored by " + ans.rule}
	case ans.ignored:
		return ruling{class: Ignored, why: "ignored by " + ans.rule}
	case ans.rule != "":
		return ruling{class: Gated, why: "gated: re-included by " + ans.rule}
	}
	return ruling{class: Gated, why: st.whyGated}
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}
