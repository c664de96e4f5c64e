//go:build !linux

package coordinator

import "github.com/leasegate/leasegate"

// CurrentPidNS: there are no pid namespaces here.
func CurrentPidNS() leasegate.PidNS { return leasegate.PidNS{ID: "none", Host: true} }

// currentUIDMap: there are no user namespaces here.
func currentUIDMap() uidMap { return nil }
