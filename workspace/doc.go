// Package workspace owns where a workspace is and what in it is gated: it
// finds the root (the top of the git checkout, or the directory itself
// outside git), the git dir and the leasegate state directory, loads the
// optional leasegate.json, and classifies workspace paths as gated, ignored,
// excluded, inside .git or inside the state directory.
//
// The state directory is <gitdir>/leasegate, where `git status` never looks.
// In a linked worktree the git dir is the per-worktree one
// (<main>/.git/worktrees/<name>), so each worktree is its own workspace with
// its own coordinator; outside git it is <root>/.leasegate.
//
// Classification must be fast (the run sidecar asks once per intercepted
// mutation): git's ignore rules are answered by one long-lived
// `git check-ignore --stdin` process per Rule and cached. The package decides
// nothing about leases, talks to no coordinator and writes nothing in the
// working tree.
package workspace
