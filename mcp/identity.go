package mcp

import (
	"context"
	"os"
	"sync"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/hooks"
)

// identity is who the server acts for. An explicit name (--as) is used
// as given: the sidecar or the user registered it. Otherwise the
// coordinator says, by the rule it applies to every request: the owner
// whose root process is nearest among this process's ancestors, which is
// the session the agent's hooks registered with the agent as root. When
// there is none yet and a tool must act (acquire), the server registers
// the agent's session itself, found by the hooks' agent detection.
type identity struct {
	explicit string
	parent   int // where the walk up to the agent starts
	mu       sync.Mutex
	made     string // the owner this server registered, if it did
}

// who returns the name this server acts as, or "" when it is nobody yet
// and need not be (a read-only tool).
func (id *identity) who(ctx context.Context, cl Coordinator, act bool) (string, error) {
	if id.explicit != "" {
		return id.explicit, nil
	}
	v, err := cl.Whoami(ctx)
	if err != nil {
		return "", err
	}
	if me := id.named(v); me != "" || !act {
		return me, nil
	}
	return id.register(ctx, cl)
}

// named is the name this server acts as by the coordinator's view of it
// (whoami's, or a check's), or "" when it is nobody yet.
func (id *identity) named(v leasegate.CallerView) string {
	switch {
	case id.explicit != "":
		return id.explicit
	case len(v.Owners) > 0:
		return v.Owners[0]
	}
	return ""
}

// register registers the agent's session as an owner, once, or joins the
// owner the agent's hooks registered for the same agent process meanwhile.
func (id *identity) register(ctx context.Context, cl Coordinator) (string, error) {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.made != "" {
		return id.made, nil
	}
	sess, _ := hooks.FindAgentSession(id.parent, os.Getenv)
	name, err := cl.Join(ctx, leasegate.Registration{Owner: sess.Owner, JoinRoot: true})
	if err != nil {
		return "", err
	}
	id.made = name
	return id.made, nil
}
