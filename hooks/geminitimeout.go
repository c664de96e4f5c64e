package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// geminiDefaultTimeout is how long Gemini CLI lets a hook run when its
// entry names no timeout: shorter than the 180 s retry.
const geminiDefaultTimeout = 60 * time.Second

// geminiShortTimeout says how many of leasegate's BeforeTool hooks in
// file Gemini CLI would kill before the hook's own bound (DefaultTimeout,
// which covers the 180 s retry), or "" when none. Gemini CLI counts a
// hook's timeout in milliseconds, unlike the other agents, and lets the
// tool run when it kills a hook, so a timeout written in seconds, or
// none, lets a held file's write through once it has waited 0.24 s or
// 60 s.
func geminiShortTimeout(file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	var doc struct {
		Hooks struct {
			BeforeTool []struct {
				Hooks []struct {
					Command string   `json:"command"`
					Timeout *float64 `json:"timeout"`
				} `json:"hooks"`
			} `json:"BeforeTool"`
		} `json:"hooks"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return ""
	}
	n, shortest := 0, time.Duration(0)
	for _, g := range doc.Hooks.BeforeTool {
		for _, h := range g.Hooks {
			d := geminiDefaultTimeout
			if h.Timeout != nil {
				d = time.Duration(*h.Timeout * float64(time.Millisecond))
			}
			if !isOursCommand(Gemini, h.Command, nil) || d > DefaultTimeout {
				continue
			}
			if n == 0 || d < shortest {
				shortest = d
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of leasegate's BeforeTool hooks may run only %s (Gemini CLI counts timeout in milliseconds, and takes 60000 when none is set): "+
		"it kills the hook while a write waits for the 180 s retry and lets the write through; run `leasegate install gemini` again", n, shortest)
}
