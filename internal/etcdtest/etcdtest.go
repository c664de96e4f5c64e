// Package etcdtest starts real etcd servers (the etcd binary, as a child
// process on loopback ports in a directory of the caller's) for tests of
// the etcd ledger and of coordinators that share one.
package etcdtest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/leasegate/leasegate/internal/envname"
)

// Env names the etcd binary to use. CI sets it after installing etcd, and
// then a missing or broken binary fails the tests instead of skipping them.
const Env = envname.TestEtcd

// ErrNoEtcd is returned by Binary when no etcd is installed and Env is not
// set: the caller may skip, saying so.
var ErrNoEtcd = errors.New("no etcd binary on PATH (.ci/run installs Debian's etcd-server and sets " + Env + ")")

// Binary returns the etcd binary to run: Env's value, else etcd on PATH.
func Binary() (string, error) {
	if p := os.Getenv(Env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", Env, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("etcd")
	if err != nil {
		return "", ErrNoEtcd
	}
	return p, nil
}

// Cluster is a running etcd cluster of one or more members.
type Cluster struct {
	// Endpoints are the members' client URLs, in member order.
	Endpoints []string
	members   []*member
}

type member struct {
	bin, name, dir, client string
	args                   []string
	cmd                    *exec.Cmd
	exited                 chan struct{}
}

// startAttempts bounds the starts of a new cluster on fresh ports: the
// ports freePorts found are free only until it closes them, and until etcd
// binds them another process (the tests of other packages run beside
// these) may take one for a connection of its own.
const startAttempts = 3

// Start starts an n-member cluster with its data and logs under dir and
// waits (up to a minute) until every member reports healthy. A member that
// finds one of its ports taken has the whole cluster started again on
// other ports.
func Start(dir string, n int) (*Cluster, error) {
	for attempt := 1; ; attempt++ {
		c, err := start(dir, n)
		if err == nil || attempt == startAttempts || !strings.Contains(err.Error(), "address already in use") {
			return c, err
		}
		for i := range n {
			if err := os.RemoveAll(filepath.Join(dir, fmt.Sprintf("m%d", i))); err != nil {
				return nil, err
			}
		}
	}
}

func start(dir string, n int) (*Cluster, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	var peers []string
	for i := range n {
		cp, pp, err := freePorts()
		if err != nil {
			return nil, err
		}
		m := &member{bin: bin, name: fmt.Sprintf("m%d", i), dir: filepath.Join(dir, fmt.Sprintf("m%d", i)),
			client: fmt.Sprintf("http://127.0.0.1:%d", cp)}
		peer := fmt.Sprintf("http://127.0.0.1:%d", pp)
		m.args = []string{"--name", m.name, "--data-dir", filepath.Join(m.dir, "data"),
			"--listen-client-urls", m.client, "--advertise-client-urls", m.client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster-state", "new", "--initial-cluster-token", "leasegate-test"}
		peers = append(peers, m.name+"="+peer)
		c.members = append(c.members, m)
		c.Endpoints = append(c.Endpoints, m.client)
	}
	for _, m := range c.members {
		m.args = append(m.args, "--initial-cluster", strings.Join(peers, ","))
		if err := m.start(); err != nil {
			c.Stop()
			return nil, err
		}
	}
	for i := range c.members {
		if err := c.waitHealthy(i, time.Minute); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

func (m *member) start() error {
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(m.dir, "etcd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(m.bin, m.args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", m.bin, err)
	}
	m.cmd, m.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(m.exited) }()
	return nil
}

func (m *member) stop() {
	if m.cmd == nil {
		return
	}
	m.cmd.Process.Kill()
	<-m.exited
	m.cmd = nil
}

// StopMember kills member i (SIGKILL), keeping its data.
func (c *Cluster) StopMember(i int) { c.members[i].stop() }

// RestartMember starts member i again on its data and waits until it is
// healthy.
func (c *Cluster) RestartMember(i int) error {
	m := c.members[i]
	m.args = replaceArg(m.args, "--initial-cluster-state", "existing")
	if err := m.start(); err != nil {
		return err
	}
	return c.waitHealthy(i, time.Minute)
}

// WipeMember kills member i, deletes its data and starts it again empty,
// as a new one-member cluster at the same endpoint: what a team meets when
// its etcd was reinstalled or its volume lost. Only for a one-member
// cluster.
func (c *Cluster) WipeMember(i int) error {
	if len(c.members) != 1 {
		return fmt.Errorf("WipeMember: the cluster has %d members, not one", len(c.members))
	}
	m := c.members[i]
	m.stop()
	if err := os.RemoveAll(filepath.Join(m.dir, "data")); err != nil {
		return err
	}
	m.args = replaceArg(m.args, "--initial-cluster-state", "new")
	if err := m.start(); err != nil {
		return err
	}
	return c.waitHealthy(i, time.Minute)
}

// BackupMember stops member i, copies its data directory aside and starts
// it again; RestoreMember puts that copy back. It returns the copy's path.
// Only for a one-member cluster, whose data is the whole cluster's.
func (c *Cluster) BackupMember(i int) (string, error) {
	if len(c.members) != 1 {
		return "", fmt.Errorf("BackupMember: the cluster has %d members, not one", len(c.members))
	}
	m := c.members[i]
	m.stop()
	backup := filepath.Join(m.dir, fmt.Sprintf("backup-%d", time.Now().UnixNano()))
	if err := exec.Command("cp", "-a", filepath.Join(m.dir, "data"), backup).Run(); err != nil {
		return "", fmt.Errorf("copy %s's data: %w", m.name, err)
	}
	return backup, c.RestartMember(i)
}

// RestoreMember stops member i, replaces its data with backup (from
// BackupMember) and starts it again: the cluster goes back to the time of
// the backup, as one restored from an older snapshot does.
func (c *Cluster) RestoreMember(i int, backup string) error {
	m := c.members[i]
	m.stop()
	data := filepath.Join(m.dir, "data")
	if err := os.RemoveAll(data); err != nil {
		return err
	}
	if err := exec.Command("cp", "-a", backup, data).Run(); err != nil {
		return fmt.Errorf("restore %s's data: %w", m.name, err)
	}
	return c.RestartMember(i)
}

// Stop kills every member. The data stays in the directory given to Start.
func (c *Cluster) Stop() {
	for _, m := range c.members {
		m.stop()
	}
}

// Log returns member i's log, for failure messages.
func (c *Cluster) Log(i int) string {
	b, _ := os.ReadFile(filepath.Join(c.members[i].dir, "etcd.log"))
	return string(b)
}

func (c *Cluster) waitHealthy(i int, within time.Duration) error {
	m := c.members[i]
	deadline := time.Now().Add(within)
	hc := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-m.exited:
			return fmt.Errorf("etcd member %s exited at start: %s", m.name, tail(c.Log(i)))
		default:
		}
		if resp, err := hc.Get(m.client + "/health"); err == nil {
			ok := resp.StatusCode == http.StatusOK
			resp.Body.Close()
			if ok {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcd member %s not healthy within %v: %s", m.name, within, tail(c.Log(i)))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePorts returns two loopback ports free when it returns; a variable so
// that a test can hand out a taken one.
var freePorts = func() (int, int, error) {
	a, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	defer a.Close()
	b, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	defer b.Close()
	return a.Addr().(*net.TCPAddr).Port, b.Addr().(*net.TCPAddr).Port, nil
}

func replaceArg(args []string, flag, val string) []string {
	for i := range args {
		if args[i] == flag && i+1 < len(args) {
			args[i+1] = val
		}
	}
	return args
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}
