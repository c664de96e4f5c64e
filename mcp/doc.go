// Package mcp is leasegate's Model Context Protocol server: it lets a
// coding agent see and plan around leases (which files are taken, by
// whom, how alive the holder is and when a waiting write is retried) and
// check files out before it starts, over the official Go SDK's stdio
// transport.
//
// It is an adapter like the hooks: its tools call the coordinator through
// the api client, never its internals, and it acts for the owner the
// agent's hooks use (the hooks package finds the agent process). When the
// coordinator cannot be reached, every tool answers an error result that
// says so, never an empty "all free".
package mcp
