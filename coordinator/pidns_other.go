//go:build !linux

package coordinator

// ownPidNS: there are no pid namespaces here.
func CurrentPidNS() PidNS { return PidNS{ID: "none", Host: true} }
