package integration_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/internal/pairbench"
)

// versusBaselineEnv, when set to the path of another leasegate binary,
// adds its coordinator to BenchmarkVersusRedis as "baseline", measured in
// the same turns: a change's before and after in one run.
const versusBaselineEnv = "LEASEGATE_BENCH_BASELINE"

// versusRounds is how many times each server's share of a comparison is
// split, the servers taking turns, so that a burst of load elsewhere on
// the machine falls on each of them.
const versusRounds = 4

// BenchmarkVersusRedis is BRIEF §5's bar for the coordinator: durable
// acquire+release pairs over the unix socket against Redis with
// appendfsync always, measured side by side. Both servers run as their own
// processes with their files in one temp dir (set TMPDIR to a directory on
// the disk that matters; tmpfs would measure no fsync), the clients in this
// process with one connection each, 16 and 1 at once. Each sub-benchmark
// runs b.N pairs on each server in versusRounds turns and reports pairs/s,
// p50 and p99 of a pair, the CPU each server's process used per pair (and
// this process, its clients'), and leasegate's pairs/s over Redis's
// ("leasegate-ratio", ahead when above 1).
//
// A Redis pair is the cheapest honest lease: SET key owner NX, then DEL
// key, each appended to the AOF and fsynced before its answer. A leasegate
// pair is a check-out acquire of one file and its release, the pair of
// api's BenchmarkCoordinatorPairs, through `leasegate serve`.
func BenchmarkVersusRedis(b *testing.B) {
	servers := []versusServer{startRedis(b), startVersusCoordinator(b, "leasegate", bin)}
	if base := os.Getenv(versusBaselineEnv); base != "" {
		servers = append(servers, startVersusCoordinator(b, "baseline", base))
	}
	for _, clients := range []int{16, 1} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			figs, err := compareServers(b.N, clients, servers...)
			if err != nil {
				b.Fatal(err)
			}
			reportVersus(b, figs)
		})
	}
}

// TestVersusRedisHarness runs BenchmarkVersusRedis's comparison for a
// handful of pairs, so that the harness cannot rot: both servers must
// answer every pair and yield figures. It asserts no speed.
func TestVersusRedisHarness(t *testing.T) {
	servers := []versusServer{startRedis(t), startVersusCoordinator(t, "leasegate", bin)}
	const pairs = 2 * versusRounds
	for _, clients := range []int{2, 1} {
		figs, err := compareServers(pairs, clients, servers...)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range figs {
			if s.Ops() != pairs || s.PerSecond() <= 0 || s.Percentile(99) <= 0 {
				t.Errorf("clients=%d %s: %d pairs, %.0f pairs/s, p99 %v; want %d pairs and figures",
					clients, s.name, s.Ops(), s.PerSecond(), s.Percentile(99), pairs)
			}
		}
	}
}

// versusServer is one server of the comparison: its pid, for its CPU, and
// a pair on one of its clients.
type versusServer struct {
	name string
	pid  int
	dial func(clients int) ([]pairFunc, func(), error)
}

// pairFunc does one pair; i is the pair's number, unique in a comparison.
type pairFunc func(ctx context.Context, i int) error

// serverFigures is what one server measured in a comparison.
type serverFigures struct {
	name string
	pairbench.Result
	cpu       time.Duration // the server process's user and system time
	clientCPU time.Duration // this process's, where the clients run
}

// compareServers runs n pairs from clients clients on each server, in
// versusRounds turns (the first server changes each turn), and returns
// each server's figures in the order given.
func compareServers(n, clients int, servers ...versusServer) ([]serverFigures, error) {
	figs := make([]serverFigures, len(servers))
	dos := make([][]pairFunc, len(servers))
	for k, srv := range servers {
		do, done, err := srv.dial(clients)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", srv.name, err)
		}
		defer done()
		figs[k].name, dos[k] = srv.name, do
	}
	per := max(n/versusRounds, 1)
	for round := range versusRounds {
		for j := range servers {
			k := (round + j) % len(servers)
			cpu0, self0 := processCPU(servers[k].pid), processCPU(os.Getpid())
			r, err := pairbench.Run(per, clients, func(ctx context.Context, c, i int) error {
				return dos[k][c](ctx, round*per+i)
			})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", servers[k].name, err)
			}
			figs[k].cpu += processCPU(servers[k].pid) - cpu0
			figs[k].clientCPU += processCPU(os.Getpid()) - self0
			figs[k].Add(r)
		}
	}
	return figs, nil
}

// reportVersus reports every server's figures, and each one's pairs/s
// over the first's (Redis's) as "NAME-ratio".
func reportVersus(b *testing.B, figs []serverFigures) {
	for _, s := range figs {
		b.ReportMetric(s.PerSecond(), s.name+"-pairs/s")
		b.ReportMetric(float64(s.Percentile(50).Microseconds()), s.name+"-p50-µs")
		b.ReportMetric(float64(s.Percentile(99).Microseconds()), s.name+"-p99-µs")
		if s.cpu > 0 {
			b.ReportMetric(float64(s.cpu.Microseconds())/float64(s.Ops()), s.name+"-cpu-µs/pair")
			b.ReportMetric(float64(s.clientCPU.Microseconds())/float64(s.Ops()), s.name+"-client-cpu-µs/pair")
		}
	}
	for _, s := range figs[1:] {
		b.ReportMetric(s.PerSecond()/figs[0].PerSecond(), s.name+"-ratio")
	}
}

// processCPU is the user and system time process pid has used, from
// /proc (0 where there is none: the figure is then left out).
func processCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis start at the
	// third (state); utime and stime are the 14th and 15th, in clock
	// ticks, which Linux reports at 100 a second to user space.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// startVersusCoordinator starts `serve` of the leasegate binary prog on a
// new checkout, logging only errors as an installed coordinator would, and
// returns it as a server of the comparison named name: each client its
// own api.Client on the stream.
func startVersusCoordinator(tb testing.TB, name, prog string) versusServer {
	tb.Helper()
	r := newCheckout(tb, nil)
	r.level, r.bin = "error", prog
	r.startServer(retryAfter, idleAfter)
	sock := filepath.Join(r.dir, ".git", "leasegate", "coord.sock")
	return versusServer{name: name, pid: r.server.Process.Pid, dial: func(clients int) ([]pairFunc, func(), error) {
		do := make([]pairFunc, clients)
		cls := make([]*api.Client, clients)
		done := func() {
			for _, cl := range cls {
				if cl != nil {
					cl.Close()
				}
			}
		}
		for c := range do {
			cl, err := api.NewClient(api.ClientConfig{Socket: sock})
			if err != nil {
				done()
				return nil, nil, err
			}
			cls[c] = cl
			owner := gate.Owner{Name: fmt.Sprintf("w%d", c)}
			do[c] = func(ctx context.Context, i int) error { return checkoutPair(ctx, cl, owner, i) }
		}
		return do, done, nil
	}}
}

// checkoutPair acquires a check-out lease on file i of owner's own and
// releases it.
func checkoutPair(ctx context.Context, cl *api.Client, owner gate.Owner, i int) error {
	res, err := cl.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: owner,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("%s/f%d", owner.Name, i)}}})
	if err != nil {
		return err
	}
	l := res.Leases[0]
	_, err = cl.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: owner, LeaseID: l.ID, Token: l.FencingToken})
	return err
}

// startRedis starts redis-server with every write fsynced before its
// answer (appendonly, appendfsync always, no snapshots), listening only on
// a unix socket in a temp dir that also holds its AOF, and returns it as a
// server of the comparison. It fails the test when Redis should be there
// (envname.TestRedis set) and does not start; it skips only when
// redis-server is not installed.
func startRedis(tb testing.TB) versusServer {
	tb.Helper()
	prog := os.Getenv(envname.TestRedis)
	if prog == "" {
		var err error
		if prog, err = exec.LookPath("redis-server"); err != nil {
			tb.Skipf("no redis-server installed (apt-get install redis-server, or set %s)", envname.TestRedis)
		}
	}
	dir := tb.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(prog, "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
		"--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", "",
		"--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", prog, err)
	}
	tb.Cleanup(func() { terminate(cmd.Process.Pid); _ = cmd.Wait() })
	if err := waitRedis(sock, 15*time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
		tb.Fatalf("redis-server did not answer on %s: %v\n%s", sock, err, log)
	}
	return versusServer{name: "redis", pid: cmd.Process.Pid, dial: func(clients int) ([]pairFunc, func(), error) {
		do := make([]pairFunc, clients)
		conns := make([]*respConn, clients)
		done := func() {
			for _, c := range conns {
				if c != nil {
					c.Close()
				}
			}
		}
		for c := range do {
			rc, err := dialRedis(sock)
			if err != nil {
				done()
				return nil, nil, err
			}
			conns[c] = rc
			owner := fmt.Sprintf("w%d", c)
			do[c] = func(_ context.Context, i int) error { return rc.leasePair(fmt.Sprintf("%s/f%d", owner, i), owner) }
		}
		return do, done, nil
	}}
}

// waitRedis waits until Redis answers PING on sock.
func waitRedis(sock string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := dialRedis(sock)
		if err == nil {
			err = c.do("+PONG", "PING")
			c.Close()
		}
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// respConn is a connection to Redis speaking just enough RESP for the
// comparison: commands as arrays of bulk strings, one-line answers.
type respConn struct {
	net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

func dialRedis(sock string) (*respConn, error) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return nil, err
	}
	return &respConn{Conn: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}, nil
}

// leasePair takes key for owner if it is free and frees it again.
func (c *respConn) leasePair(key, owner string) error {
	if err := c.do("+OK", "SET", key, owner, "NX"); err != nil {
		return err
	}
	return c.do(":1", "DEL", key)
}

// do sends one command and checks that the answer is the line want.
func (c *respConn) do(want string, args ...string) error {
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
	if err := c.w.Flush(); err != nil {
		return err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("redis %s: %w", args[0], err)
	}
	if got := strings.TrimSuffix(line, "\r\n"); got != want {
		return fmt.Errorf("redis %s answered %q, want %q", args[0], got, want)
	}
	return nil
}
