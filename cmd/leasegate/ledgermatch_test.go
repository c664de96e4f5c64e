package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

// TestNamedLedgerJoinTakenElsewhere: a sidecar's registration whose
// connection breaks is sent again, and reaches the coordinator that took
// over the socket meanwhile. One serving another ledger than
// LEASEGATE_CLUSTER names is told the owner ended, and the registration is
// refused (it was taken, and the worker's writes granted on the wrong
// lease table).
func TestNamedLedgerJoinTakenElsewhere(t *testing.T) {
	root := mustGitInit(t)
	t.Setenv(envname.Cluster, `{"endpoints": ["http://e:2379"], "workspace": "acme/web"}`)
	ws, err := workspace.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "coord.sock")
	named, file := ws.Ledger(), leasegate.LedgerView{File: filepath.Join(root, ".git", "leasegate", "ledger.db")}

	var mu sync.Mutex
	var joined, ended []string
	plain := http.NewServeMux()
	plain.HandleFunc("GET /v1/health", answer(api.Health{OK: true, API: "v1", PID: 2, Ledger: &file}))
	plain.HandleFunc("POST /v1/owners", func(w http.ResponseWriter, r *http.Request) {
		var reg leasegate.Registration
		_ = json.NewDecoder(r.Body).Decode(&reg)
		mu.Lock()
		joined = append(joined, reg.Name)
		mu.Unlock()
		answer(leasegate.Joined{Owner: reg.Name})(w, r)
	})
	plain.HandleFunc("POST /v1/owners/{name}/end", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ended = append(ended, r.PathValue("name"))
		mu.Unlock()
		answer(api.EndResponse{})(w, r)
	})

	cluster := http.NewServeMux()
	var first *http.Server
	cluster.HandleFunc("GET /v1/health", answer(api.Health{OK: true, API: "v1", PID: 1, Ledger: &named}))
	cluster.HandleFunc("POST /v1/owners", func(http.ResponseWriter, *http.Request) {
		// The coordinator on the cluster is replaced by one on the file
		// before it answers.
		first.Close()
		serveFake(t, sock, plain)
		panic(http.ErrAbortHandler)
	})
	first = serveFake(t, sock, cluster)

	cl, err := api.NewClient(api.ClientConfig{Socket: sock, NoStream: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	name, err := namedLedgerClient{Client: cl, ws: ws}.Join(context.Background(), leasegate.Registration{Owner: gate.Owner{Name: "alice"}})
	mu.Lock()
	defer mu.Unlock()
	if len(joined) != 1 {
		t.Fatalf("registrations taken by the coordinator on the file: %v, want alice's sent again (Join = %q, %v)", joined, name, err)
	}
	if !errors.Is(err, leasegate.ErrLedgerMismatch) {
		t.Fatalf("Join(alice) taken by the coordinator on the file = %q, %v; want %v", name, err, leasegate.ErrLedgerMismatch)
	}
	if len(ended) != 1 || ended[0] != "alice" {
		t.Errorf("owners ended on the coordinator on the file: %v, want alice", ended)
	}
}

// serveFake serves mux on the unix socket sock until the test ends.
func serveFake(t *testing.T, sock string, mux *http.ServeMux) *http.Server {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// answer writes v as the JSON answer of a request.
func answer(v any) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
}
