// Package hooks adapts the hooks of coding-agent CLIs (Claude Code, Codex,
// Gemini CLI, Cursor) and of git to the lease gate. It owns the hook
// protocols: parsing each agent's hook input, deciding what the event asks
// of the coordinator, and rendering the answer so that it blocks in every
// agent (JSON deny on stdout, the reason also on stderr, exit 2). It also
// installs and uninstalls those hooks without touching anything else in
// the agents' settings or in git's hook directory.
//
// A file-writing tool call is gated as one mutation of all the gated files
// it names, through the api client's Gate: a grant allows the call; a path
// still held after the one retry denies it with the blocker report's id
// and halts the session where the agent can be halted. It fails closed: a
// coordinator that cannot be reached, input that cannot be parsed or a
// deadline that passes deny the call, never allow it. Shell commands are
// not gated by hooks (that is what `leasegate run` is for); their writes are
// found afterwards from `git status` snapshots and reported as ungated. A
// Gemini CLI shell command that may commit is given git's hooks back, which
// Gemini CLI turns off, so that the git guard decides its commits
// (hookson.go).
//
// The package talks to nothing but the coordinator (through the api
// client) and git; it never decides about leases itself. A write to a
// file no ignore pattern can match starts no process: the checkout is
// found (workspace.Find) and the gating rule applied from the files git
// reads, and git is asked whenever those cannot tell for sure
// (ignorable.go).
package hooks
