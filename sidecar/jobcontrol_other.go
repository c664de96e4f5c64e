//go:build !linux

package sidecar

import "context"

// followSuspend does nothing where run gates no worker (only Linux has
// its gates).
func (s *Sidecar) followSuspend(ctx context.Context) {}
