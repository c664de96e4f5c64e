// Package intercepttest holds what the interception adapters' tests share:
// a Decider that records what it is asked and answers from a script, and a
// buffer for a worker's two output streams.
//
// It is imported by tests only; it decides nothing on its own.
package intercepttest

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/leasegate/leasegate/intercept"
)

// Recorder is a Decider that records every mutation and answers with
// Answer (nil: allow).
type Recorder struct {
	Answer func(ctx context.Context, m intercept.Mutation) error

	mu  sync.Mutex
	got []intercept.Mutation
}

var _ intercept.Decider = (*Recorder)(nil)

// Decide records m and answers it.
func (r *Recorder) Decide(ctx context.Context, m intercept.Mutation) error {
	r.mu.Lock()
	r.got = append(r.got, m)
	r.mu.Unlock()
	if r.Answer != nil {
		return r.Answer(ctx, m)
	}
	return nil
}

// All returns the mutations recorded so far.
func (r *Recorder) All() []intercept.Mutation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// Under returns the recorded mutations that touch a path under one of
// dirs.
func (r *Recorder) Under(dirs ...string) []intercept.Mutation {
	var out []intercept.Mutation
	for _, m := range r.All() {
		if slices.ContainsFunc(m.Paths, func(p string) bool { return Within(p, dirs) }) {
			out = append(out, m)
		}
	}
	return out
}

// Within reports whether p is one of dirs or lies under one.
func Within(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// Buffer is a bytes.Buffer safe for a worker's two output streams.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
