package main

import "fmt"

// reasonRunUnsupported is the reason code of `run` on a platform without
// the seccomp gate.
const reasonRunUnsupported = "RUN_UNSUPPORTED"

// refuseRun says, for platform ("darwin/arm64"), that `run` cannot gate a
// worker there and what gates the agents instead; exit 2. It is said
// before anything starts: no worker, no sidecar, no coordinator.
func refuseRun(platform string) error {
	reportError(fmt.Errorf("run: the seccomp gate needs Linux on amd64 or arm64; this is %s. "+
		"Gate the agents through their hooks instead (leasegate install claude-code|codex|gemini|cursor) "+
		"and commits through the git hooks (leasegate install git)", platform), exitUsage, reasonRunUnsupported)
	return &exitStatus{code: exitUsage}
}
