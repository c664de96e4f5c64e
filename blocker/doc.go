// Package blocker owns the blocker report: what is written when a denied
// mutation is still held after its one retry, how an operator reads it
// (Markdown and JSON), and how it is resolved (retry, deny, abort).
//
// It does no I/O beyond rendering to an io.Writer and keeps no storage: the
// coordinator appends blocker.opened, blocker.retried (an operator's retry
// that found the file still held) and blocker.resolved ledger events
// (built by OpenedEvent, RetriedEvent and ResolvedEvent), and Book is their projection,
// so replaying the same events gives the same Book. It imports only the
// standard library and gate; it takes no decisions about leases.
package blocker
