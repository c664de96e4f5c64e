// Package integration holds leasegate's end-to-end tests: the real binary,
// real processes under the seccomp gate, a real coordinator on its unix
// socket with a real bbolt ledger, real git and real shell tools. Windows
// are shortened with the documented --retry-after and --idle-after flags;
// one test asserts the defaults are exactly the contract.
//
// The tests that need Linux (/proc, stop signals, pid namespaces) are in
// files built for Linux only; the process control the others use is in one
// file per platform, so that the suite type-checks wherever leasegate builds.
package integration
