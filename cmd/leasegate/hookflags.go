package main

import (
	"flag"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/internal/envname"
)

// hookFlags are the flags of `leasegate hook`.
type hookFlags struct {
	common
	as          string
	timeout     time.Duration
	unreachable time.Duration
	logSet      bool
}

func (f *hookFlags) register(fs *flag.FlagSet) {
	f.common.register(fs, true)
	fs.Lookup("json").Usage = "refused (exit 2): an agent hook answers in its agent's JSON, a git hook in text"
	fs.StringVar(&f.as, "as", os.Getenv(envname.As), "owner name to act as (env "+envname.As+"; default: made from the agent's session id)")
	fs.Var(newDurationFlag(&f.timeout, hooks.DefaultTimeout, envname.HookTimeout), "timeout",
		"give up and deny after this `duration`, the wait for the one retry included (env "+envname.HookTimeout+
			"); keep it below the agent's hook timeout; zero, negative or not a duration is a usage error")
	fs.Var(newDurationFlag(&f.unreachable, hooks.DefaultUnreachable, envname.HookUnreachable), "unreachable",
		"deny after the coordinator has not answered for this `duration` (env "+envname.HookUnreachable+
			"); zero, negative or not a duration is a usage error")
}

// parse parses the flags of hook, install and uninstall and
// returns the positional arguments. LEASEGATE_NO_START=1 acts as
// --no-start, as for every command (common.register).
func (f *hookFlags) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseMixed(fs, args)
	if err != nil {
		return nil, err
	}
	fs.Visit(func(fl *flag.Flag) { f.logSet = f.logSet || fl.Name == "log-level" })
	f.logSet = f.logSet || os.Getenv(envname.LogLevel) != ""
	return pos, nil
}

// log is silent unless a log level was asked for: a hook's stderr is the
// reason an agent shows, and must hold nothing else.
func (f *hookFlags) log() hclog.Logger {
	if !f.logSet {
		return hclog.NewNullLogger()
	}
	return f.logger("leasegate")
}
