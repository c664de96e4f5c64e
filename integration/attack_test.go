package integration_test

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// attackScript, run by python3 with the socket path and a count, opens
// that many stream connections, sends on each the header of a 1 MiB frame
// and as much of its body as the socket takes without waiting (not all of
// it), prints how many the coordinator took, and holds them
// until its stdin closes.
const attackScript = `
import socket, struct, sys
held = []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.settimeout(20)
        s.connect(sys.argv[1])
        s.sendall(b"GET /v1/stream HTTP/1.1\r\nHost: leasegate\r\nConnection: Upgrade\r\nUpgrade: leasegate-stream/1\r\n\r\n")
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            b = s.recv(1)
            if not b:
                raise OSError("closed")
            head += b
        s.sendall(struct.pack(">I", 1 << 20))
        s.setblocking(False)
        try:
            s.send(bytes((1 << 20) - 1))  # what the socket takes at once
        except BlockingIOError:
            pass
        held.append(s)
    except OSError:
        s.close()
print(len(held), flush=True)
sys.stdin.read()
`

// TestStalledFramesMemoryBounded: 2,000 stream connections from 16
// processes, each sending the header of a 1 MiB frame and part of its body
// and stalling, leave the coordinator's resident memory bounded (each
// frame's buffer used to be allocated whole at its header and filled as
// bytes came, with no cap on connections), and it keeps answering.
func TestStalledFramesMemoryBounded(t *testing.T) {
	const conns, processes = 2000, 16
	const boundMiB = 96.0
	r := newRepo(t, nil)
	pid := r.server.Process.Pid
	sock := filepath.Join(r.dir, ".git", "leasegate", "coord.sock")
	before := rssMiB(t, pid)
	var held []int
	var stdins []io.Closer
	var attackers []*exec.Cmd
	defer func() { // close every attacker's stdin first: that ends them
		for _, in := range stdins {
			in.Close()
		}
		for _, cmd := range attackers {
			_ = cmd.Wait()
		}
	}()
	for range processes {
		cmd := exec.Command("python3", "-c", attackScript, sock, fmt.Sprint(conns/processes))
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdins = append(stdins, in)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		attackers = append(attackers, cmd)
		var n int
		if _, err := fmt.Fscan(out, &n); err != nil {
			t.Fatalf("attacker: %v", err)
		}
		held = append(held, n)
	}
	peak := rssMiB(t, pid)
	for range 5 { // the coordinator reads what was sent at its own pace
		time.Sleep(200 * time.Millisecond)
		peak = max(peak, rssMiB(t, pid))
	}
	t.Logf("stalled streams held by %d processes: %v; coordinator RSS %.1f MiB before, %.1f MiB at most during", processes, held, before, peak)
	if peak > boundMiB {
		t.Fatalf("coordinator RSS reached %.1f MiB under %d stalled 1 MiB frames, want at most %.0f MiB", peak, conns, boundMiB)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.client.Health(ctx); err != nil {
		t.Fatalf("coordinator under the attack: %v", err)
	}
}
