package seccomp

import (
	"errors"

	"github.com/leasegate/leasegate/intercept/spawn"
)

// Fallback names the other gates a user can choose when this one cannot run.
const Fallback = "gate the agent through its hooks instead (leasegate install claude-code|codex|gemini|cursor)"

var (
	// ErrNoUserNotif means the kernel cannot send seccomp user
	// notifications (Linux 5.0+ with SECCOMP_RET_USER_NOTIF, and seccomp
	// enabled). Start returns it before spawning anything useful.
	ErrNoUserNotif = errors.New("seccomp user notification (SECCOMP_RET_USER_NOTIF) unavailable: " + Fallback)

	// ErrNoWaitKillable means the kernel lacks
	// SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (Linux 5.19+). Without it every
	// handled signal restarts a held syscall and sends a new notification,
	// so a hold would start over on each SIGCHLD or SIGWINCH.
	ErrNoWaitKillable = errors.New("seccomp SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV unavailable (needs Linux 5.19+): " + Fallback)

	// ErrUnsupported means this platform (OS or CPU architecture) has no
	// seccomp gate in this package.
	ErrUnsupported = errors.New("seccomp gate unsupported on this platform: " + Fallback)

	// ErrInvalidConfig is returned (wrapped) by Config.Validate and Start.
	ErrInvalidConfig = errors.New("invalid seccomp config")

	// ErrHandshake is returned (wrapped) by Start when the re-executed
	// helper did not hand over its listener: it crashed, was killed, or
	// Self is not a binary that calls MaybeRunChild. It is the error every
	// gate's start reports for that (spawn.ErrHandshake).
	ErrHandshake = spawn.ErrHandshake
)
