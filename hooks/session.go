package hooks

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// session is what the hooks remember of one owner between calls, in
// <state dir>/hooks/<owner>/: the owner record last registered and the
// agent process it was made from, and git status snapshots around shell
// commands. Whether the session is halted is never remembered here: the
// coordinator's open blockers say it, for prompts and writes alike. Parallel hook calls each write whole files by rename, so a
// reader never sees a torn file. It is a cache: when it cannot be written
// (a worker under `leasegate run` may not write the state directory), the
// hooks still answer correctly, only with more requests.
type session struct {
	dir string
}

// sessionDirName is the file name of an owner's directory; escaping keeps
// "..", "." and odd bytes from leaving the hooks directory.
func sessionDirName(owner string) string {
	return "o-" + url.PathEscape(owner)
}

func newSession(ws *workspace.Workspace, owner string) session {
	return session{dir: filepath.Join(ws.StateDir, "hooks", sessionDirName(owner))}
}

// session returns the owner's session, or, under a sidecar, one that
// remembers nothing and writes nothing.
func (h *Handler) session(ws *workspace.Workspace, owner string) session {
	if h.cfg.UnderSidecar {
		return session{}
	}
	return newSession(ws, owner)
}

const ownerFile = "registration.json"

// registration is what a session remembers of its owner.
type registration struct {
	Owner        gate.Owner    `json:"owner"`                      // the record last registered
	Agent        agentProc     `json:"agent"`                      // the agent process it was made from
	Windows      gate.Windows  `json:"windows,omitzero"`           // the windows it named
	HeartbeatTTL time.Duration `json:"heartbeat_ttl_ns,omitempty"` // set when no agent process was found
	// ActsAs is the owner the coordinator joined the session to: one
	// registered before for the same agent process (by the agent's MCP
	// server), which the session's hook calls act as. Empty: the
	// session's own name.
	ActsAs string `json:"acts_as,omitempty"`
}

// registration returns what a hook of this session last registered.
func (s session) registration() (registration, bool) {
	var r registration
	return r, s.readJSON(ownerFile, &r)
}

func (s session) saveRegistration(r registration) error { return s.writeJSON(ownerFile, r) }

// remove forgets the session.
func (s session) remove() error {
	if s.dir == "" {
		return nil
	}
	return os.RemoveAll(s.dir)
}

func (s session) readJSON(name string, v any) bool {
	if s.dir == "" {
		return false
	}
	data, err := os.ReadFile(filepath.Join(s.dir, name))
	return err == nil && json.Unmarshal(data, v) == nil
}

func (s session) writeJSON(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.writeFile(name, data)
}

// writeFile replaces name atomically.
func (s session) writeFile(name string, data []byte) error {
	if s.dir == "" {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), filepath.Join(s.dir, name))
	}
	if werr != nil {
		_ = os.Remove(f.Name())
	}
	return werr
}
