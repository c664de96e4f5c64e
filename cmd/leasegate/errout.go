package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// Reason codes of errors that are not the coordinator's.
const (
	reasonUsage   = "USAGE"
	reasonBlocked = "BLOCKED"
	reasonError   = "ERROR"
	// reasonLedgerMismatch: LEASEGATE_CLUSTER names another ledger than
	// the running coordinator serves.
	reasonLedgerMismatch = "LEDGER_MISMATCH"
)

// jsonErrors: the invocation asked for --json, so its error is JSON too.
var jsonErrors bool

// errorReport is an error as printed under --json, on stderr.
type errorReport struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Exit    int    `json:"exit"`
	} `json:"error"`
}

// reportError says err on stderr: a line of text, or under --json one
// JSON object with the reason code and the exit code.
func reportError(err error, code int, reason string) {
	if !jsonErrors {
		fmt.Fprintln(os.Stderr, "leasegate:", err)
		return
	}
	var r errorReport
	r.Error.Code, r.Error.Message, r.Error.Exit = reason, err.Error(), code
	_ = json.NewEncoder(os.Stderr).Encode(r)
}
