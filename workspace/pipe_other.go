//go:build !(linux || freebsd || netbsd || openbsd || dragonfly || darwin)

package workspace

import "os"

// blockingPipe is os.Pipe: on Windows an anonymous pipe is synchronous and
// never joins the runtime poller, so reads block as git's answers need.
func blockingPipe() (r, w *os.File, err error) {
	return os.Pipe()
}
