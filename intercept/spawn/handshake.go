//go:build linux

package spawn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The helper's first message over the socketpair is a kind, a NUL and a
// detail; kindOK carries the gate's fd as SCM_RIGHTS. A kind of
// kindGateError followed by a number is the Gate.Errors sentinel of that
// index. The supervisor answers ackMessage once it is ready to serve, and
// only then does the helper exec the worker.
const (
	kindOK        = "ok"
	kindNotFound  = "not-found"
	kindSetup     = "setup"
	kindGateError = "gate-error-"
	kindProcLimit = "proc-limit"
	ackMessage    = "go"
)

// socketPair makes the connected pair the gate's fd travels over.
// SOCK_SEQPACKET keeps the message and its fd together. The parent's end
// receives the sender's credentials with each message (SO_PASSCRED), so
// the supervisor learns the helper's pid from the kernel, whoever started
// it.
func socketPair() (parent, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	if err := unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		closeAll(fds[:])
		return nil, nil, fmt.Errorf("socketpair: SO_PASSCRED: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "gate-parent"), os.NewFile(uintptr(fds[1]), "gate-child"), nil
}

// receiveFD waits for the helper's first message and returns the gate's
// fd and the helper's pid (the worker's, once it execs), or the helper's
// failure as an error.
func receiveFD(ctx context.Context, g Gate, conn *net.UnixConn, timeout time.Duration, argv0 string) (fd, pid int, err error) {
	conn.SetDeadline(time.Now().Add(timeout))
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(4)+unix.CmsgSpace(unix.SizeofUcred))
	n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil {
		if ctx.Err() != nil {
			return -1, 0, fmt.Errorf("%w: %w", ErrHandshake, ctx.Err())
		}
		return -1, 0, fmt.Errorf("read helper message: %v: %w", err, ErrHandshake)
	}
	fds, pid := parseControl(oob[:oobn])
	kind, detail, _ := strings.Cut(string(buf[:n]), "\x00")
	if kind != kindOK || len(fds) != 1 || pid <= 0 {
		closeAll(fds)
		return -1, 0, g.helperError(kind, detail, argv0)
	}
	unix.CloseOnExec(fds[0])
	return fds[0], pid, nil
}

// parseControl extracts the fds of SCM_RIGHTS control messages and the
// sender's pid from SCM_CREDENTIALS.
func parseControl(oob []byte) (fds []int, pid int) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, 0
	}
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		} else if cred, err := unix.ParseUnixCredentials(&m); err == nil {
			pid = int(cred.Pid)
		}
	}
	return fds, pid
}

// helperError turns the helper's failure message into the error Start
// returns.
func (g Gate) helperError(kind, detail, argv0 string) error {
	switch kind {
	case kindNotFound:
		return &exec.Error{Name: argv0, Err: exec.ErrNotFound}
	case kindSetup:
		return fmt.Errorf("%s helper: %s: %w", g.Name, detail, ErrHandshake)
	case kindProcLimit:
		return fmt.Errorf("%s helper: %w", g.Name, procLimitFrom(detail))
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(kind, kindGateError)); err == nil && strings.HasPrefix(kind, kindGateError) && n < len(g.Errors) {
		return fmt.Errorf("%s helper: %s: %w", g.Name, detail, g.Errors[n])
	}
	return fmt.Errorf("unexpected %s helper message %q: %w", g.Name, kind, ErrHandshake)
}

// errorKind is the kind the helper reports a failure of Setup with.
func (g Gate) errorKind(err error) string {
	for i, sentinel := range g.Errors {
		if errors.Is(err, sentinel) {
			return kindGateError + strconv.Itoa(i)
		}
	}
	return kindSetup
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// sendFD is the helper's side: hand the gate's fd over.
func sendFD(sock, fd int) error {
	return unix.Sendmsg(sock, []byte(kindOK), unix.UnixRights(fd), nil, 0)
}

// sendFailure is the helper's side: say why there is no fd to serve.
func sendFailure(sock int, kind string, err error) {
	_ = unix.Sendmsg(sock, []byte(kind+"\x00"+err.Error()), nil, nil, 0)
}

// waitAck is the helper's side: block until the supervisor serves.
func waitAck(sock int) error {
	buf := make([]byte, len(ackMessage))
	n, err := unix.Read(sock, buf)
	switch {
	case err != nil:
		return fmt.Errorf("read ack: %w", err)
	case string(buf[:n]) != ackMessage:
		return errors.New("supervisor went away before the worker started")
	}
	return nil
}
