package mcp_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/mcp"
	"github.com/leasegate/leasegate/store/bolt"
	"github.com/leasegate/leasegate/workspace"
)

// world is a real git repository with a real coordinator (bbolt ledger,
// real liveness) served on a unix socket, and a client for the test's
// own acts as other owners.
type world struct {
	ws     *workspace.Workspace
	sock   string
	client *api.Client
	ctx    context.Context
	stop   func()      // stops the coordinator's API
	server *mcp.Server // the server of the session connected last
	// protocol, when set, is the protocol version the sessions' clients
	// ask for, in place of the SDK's newest.
	protocol string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	dir, err := os.MkdirTemp("", "lgmcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	root, _ := filepath.EvalSymlinks(dir)
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	ws, err := workspace.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{ws: ws, sock: filepath.Join(root, "c.sock")}
	w.serve(t)
	return w
}

// serve runs the coordinator and its API until the test ends or w.stop.
func (w *world) serve(t testing.TB) {
	ledger, err := bolt.Open(filepath.Join(t.TempDir(), "ledger.db"), bolt.Config{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	live, err := liveness.New(liveness.Config{TTL: liveness.DefaultTTL})
	if err != nil {
		t.Fatal(err)
	}
	cfg := coordinator.DefaultConfig()
	cfg.Ledger, cfg.Liveness, cfg.Workspace = ledger, live, w.ws.Root
	ctx, cancel := context.WithCancel(context.Background())
	c, err := coordinator.Open(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", w.sock)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = c.Run(ctx) }()
	go func() { defer wg.Done(); _ = api.NewServer(c, "", api.Health{}, nil).Serve(ctx, ln, false) }()
	var once sync.Once
	w.ctx, w.stop = ctx, func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(w.stop)
	if w.client, err = api.NewClient(api.ClientConfig{Socket: w.sock, RetryMax: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.client.Close)
}

// connect is how the servers under test reach the coordinator.
func (w *world) connect(ctx context.Context) (mcp.Coordinator, error) {
	cl, err := api.NewClient(api.ClientConfig{Socket: w.sock, RetryMax: 1})
	if err != nil {
		return nil, err
	}
	if _, err := cl.Health(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// register registers name with a process of its own (a sleeping child,
// as another agent would be) as its liveness handle.
func (w *world) register(t testing.TB, name string) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	start, err := liveness.ProcessStart(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	o := gate.Owner{Name: name, PID: cmd.Process.Pid, StartTime: start}
	if err := w.client.Register(w.ctx, leasegate.Registration{Owner: o}); err != nil {
		t.Fatalf("Register(%s) = %v", name, err)
	}
}

// acquire checks paths out for owner, as the CLI would.
func (w *world) acquire(t testing.TB, owner string, paths ...string) gate.Lease {
	t.Helper()
	res, err := w.client.Lease(w.ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: owner},
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: paths}})
	if err != nil {
		t.Fatalf("acquire %v for %s = %v", paths, owner, err)
	}
	return res.Leases[0]
}

// release releases owner's lease l, as the CLI would. It may be called
// from another goroutine than the test's.
func (w *world) release(t testing.TB, owner string, l gate.Lease) {
	if _, err := w.client.Lease(w.ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: gate.Owner{Name: owner}, LeaseID: l.ID, Token: l.FencingToken}); err != nil {
		t.Errorf("release %s of %s = %v", l.ID, owner, err)
	}
}

// blockedWrite has owner write path, held by another, through its one
// retry (1 s) to the blocker it opens.
func (w *world) blockedWrite(t testing.TB, owner, path string) {
	t.Helper()
	req := leasegate.MutateRequest{Owner: owner, Op: "write", Paths: []string{path}, RetryAfter: gate.Window{After: time.Second, From: gate.FromFlag}}
	ctx, cancel := context.WithTimeout(w.ctx, time.Minute)
	defer cancel()
	r, err := api.Gate(ctx, w.client, req, api.Observer{Blocked: func(leasegate.Result) bool { return false }})
	if err != nil || r.Outcome != leasegate.Blocked {
		t.Fatalf("%s's write to %s = %+v, %v; want blocked", owner, path, r, err)
	}
}

// session connects an MCP client to a new server acting as owner, over
// the SDK's in-memory transport.
func (w *world) session(t testing.TB, owner string, connect mcp.ConnectFunc) *sdk.ClientSession {
	t.Helper()
	return w.connectSession(t, owner, connect, nil)
}

// sessionWith is session with the client's options.
func (w *world) sessionWith(t testing.TB, owner string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	return w.connectSession(t, owner, nil, opts)
}

func (w *world) connectSession(t testing.TB, owner string, connect mcp.ConnectFunc, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	return w.connectOver(t, owner, connect, opts, st, ct)
}

// connectOver connects an MCP client to a new server acting as owner, the
// server on st and the client on ct.
func (w *world) connectOver(t testing.TB, owner string, connect mcp.ConnectFunc, opts *sdk.ClientOptions, st, ct sdk.Transport) *sdk.ClientSession {
	t.Helper()
	if connect == nil {
		connect = w.connect
	}
	s, err := mcp.New(mcp.Config{Connect: connect, Workspace: w.ws, Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	w.server = s
	ctx := context.Background()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test"}, opts)
	if w.protocol != "" {
		client.AddSendingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
			return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
				if p, ok := req.GetParams().(*sdk.InitializeParams); ok {
					p.ProtocolVersion = w.protocol
				}
				return next(ctx, method, req)
			}
		})
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait(); s.Close() })
	return cs
}

// call calls a tool and decodes its structured content into out (when
// not nil). It returns the result.
func call(t testing.TB, cs *sdk.ClientSession, tool string, args any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", tool, args, err)
	}
	if out != nil && res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", tool, data, err)
		}
	}
	return res
}

// mustCall is call for a tool that must succeed.
func mustCall(t testing.TB, cs *sdk.ClientSession, tool string, args any, out any) string {
	t.Helper()
	res := call(t, cs, tool, args, out)
	if res.IsError {
		t.Fatalf("%s(%v) = error %s", tool, args, text(res))
	}
	if res.StructuredContent == nil {
		t.Fatalf("%s(%v): no structured content", tool, args)
	}
	return text(res)
}

// toolError calls a tool that must fail and returns its reason code.
func toolError(t *testing.T, cs *sdk.ClientSession, tool string, args any) (gate.Reason, string) {
	t.Helper()
	var ec mcp.ErrorContent
	res := call(t, cs, tool, args, &ec)
	if !res.IsError {
		t.Fatalf("%s(%v) = %s, want an error result", tool, args, text(res))
	}
	if !strings.HasPrefix(text(res), string(ec.Error.Code)+": ") || ec.Error.Code == "" {
		t.Fatalf("%s(%v): text %q, structured code %q: want the code in both", tool, args, text(res), ec.Error.Code)
	}
	return ec.Error.Code, text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
