//go:build !linux

package console

import "errors"

// isLeasegate cannot check a pid without /proc: the coordinator's process
// metrics are left out.
func isLeasegate(int) error { return errors.New("coordinator process metrics need /proc") }
