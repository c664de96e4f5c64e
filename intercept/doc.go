// Package intercept holds what every interception adapter shares with the
// sidecar that composes it: the Mutation an adapter reports before a change
// to the file tree is made, its Op, and the Decider that answers it.
//
// The adapters (intercept/seccomp, intercept/fuse) see mutations in
// different ways, a syscall held in the kernel or a FUSE request held in
// the server, and report them as the same Mutation, so the sidecar decides
// without knowing which gate runs. This package does no I/O and imports no
// adapter; it must not decide anything either.
package intercept
