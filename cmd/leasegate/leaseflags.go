package main

import (
	"flag"
	"os"
	"time"

	"github.com/leasegate/leasegate/internal/envname"
)

// leaseFlags are shared by acquire, renew, release, checkin, evict and
// stop.
type leaseFlags struct {
	common
	as     string
	token  uint64
	ttl    time.Duration
	scope  string
	reason string
}

func (f *leaseFlags) register(fs *flag.FlagSet) {
	f.common.register(fs, false)
	fs.StringVar(&f.as, "as", os.Getenv(envname.As), "owner name (env "+envname.As+")")
}

// registerToken adds --token, for the commands that act on a lease as
// its holder (renew, release, checkin); acquire, evict and stop send no
// token, so they do not take one.
func (f *leaseFlags) registerToken(fs *flag.FlagSet) {
	fs.Var(&uintFlag{n: &f.token, what: "a fencing token >= 0 (the lease's token, as status shows it)"}, "token", "the lease's fencing token `N` (default: looked up; a lease re-granted since will not match)")
}
