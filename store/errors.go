package store

import "errors"

// Errors every Ledger backend returns, wrapped with context; branch on them
// with errors.Is.
var (
	// ErrClosed is returned by Append and Replay after Close, and by an
	// Append that Close overtook before its commit.
	ErrClosed = errors.New("ledger closed")
	// ErrLocked is returned when opening a ledger that another process (or
	// another handle in this one) holds open: a workspace has one writer.
	ErrLocked = errors.New("ledger is locked by another process")
	// ErrCorrupt is returned when stored data cannot be read back as the
	// ledger wrote it: an undecodable event, a gap in the sequence, or a key
	// that disagrees with its event's Seq.
	ErrCorrupt = errors.New("ledger corrupt")
	// ErrConflict is returned by a shared ledger's Append when another
	// writer appended after the last event this writer has seen: nothing of
	// the call was written, and the caller decides again once it has read
	// what it missed.
	ErrConflict = errors.New("ledger moved on under another writer")
	// ErrWentBack is returned by a shared ledger's catch-up when the
	// ledger holds less than this reader has already read from it: its
	// store lost committed events (an etcd wiped, or restored from a
	// snapshot older than them). What the reader folded from them is no
	// longer the ledger's; it rebuilds from the ledger as it is now.
	ErrWentBack = errors.New("ledger went back")
)
