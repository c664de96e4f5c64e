package api

import "github.com/hashicorp/go-hclog"

// quietLogger hands go-retryablehttp the client's logger with each failed
// attempt demoted to debug: a retried request is not an error, and the
// caller reports the outcome it finally gets.
type quietLogger struct{ l hclog.Logger }

func (q quietLogger) Error(msg string, kv ...any) { q.l.Debug(msg, kv...) }
func (q quietLogger) Info(msg string, kv ...any)  { q.l.Debug(msg, kv...) }
func (q quietLogger) Debug(msg string, kv ...any) { q.l.Debug(msg, kv...) }
func (q quietLogger) Warn(msg string, kv ...any)  { q.l.Debug(msg, kv...) }
