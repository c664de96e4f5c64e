package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mattn/go-isatty"

	"github.com/leasegate/leasegate/workspace"
)

// Where `run --notices` sends the notices other owners' acts cause for
// the worker's owner (a write blocked on its lease, reminders, evictions).
const (
	noticesAuto = "auto" // a log file when stderr is a terminal, else stderr
	noticesTTY  = "tty"  // the terminal, at once
	noticesLog  = "log"  // the log file
)

// noticesLogPath is the file an owner's notices are appended to.
func noticesLogPath(ws *workspace.Workspace, name string) string {
	return filepath.Join(ws.StateDir, "notices", url.PathEscape(name)+".log")
}

// holderNotices opens where an owner's notices go, and says where once.
// The returned func closes it.
func holderNotices(mode string, ws *workspace.Workspace, name string) (io.Writer, func(), error) {
	tty := isatty.IsTerminal(os.Stderr.Fd())
	switch {
	case mode == noticesTTY || (mode == noticesAuto && !tty):
		return os.Stderr, func() {}, nil
	}
	path := noticesLogPath(ws, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("run: notices log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("run: notices log: %w", err)
	}
	fmt.Fprintf(os.Stderr, "leasegate: notices for %s (a write blocked on its lease, reminders, evictions) go to %s, not to this screen; `--notices tty` shows them here\n", name, path)
	return f, func() { _ = f.Close() }, nil
}
