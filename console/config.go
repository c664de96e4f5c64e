package console

import (
	"errors"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"
	"github.com/leasegate/leasegate"
	"github.com/prometheus/client_golang/prometheus"
)

// Config configures a Server.
type Config struct {
	// Service is the coordinator the console shows. Required.
	Service Service
	// Operator is who acts when a blocker is resolved from the page,
	// recorded as the resolution's `by`. Required.
	Operator string
	// Registry receives the console's collectors; nil means a new registry
	// with the standard process and Go collectors.
	Registry *prometheus.Registry
	// AdminToken is the coordinator's admin token. A request that reaches
	// the console on a non-loopback address is served only over TLS, and
	// only in a session whose login also presented this token (the
	// separate metrics listener: as `Authorization: Bearer`). "" refuses
	// every such request: the console then serves loopback only.
	AdminToken string
	// Hosts are the names and addresses, besides loopback ones, that a
	// request may be addressed to (its Host header): those of a
	// non-loopback listen address. Any other host is refused, so a web
	// page cannot reach the console through DNS rebinding.
	Hosts []string
	// Ledger is the ledger the console was started on when the operator
	// named one (LEASEGATE_CLUSTER); nil shows whichever ledger the
	// coordinator serves. A coordinator found serving another one (it was
	// replaced after the console started) is said on the page, and
	// resolutions are refused, until one of this ledger answers.
	Ledger *leasegate.LedgerView
	// AskCluster asks etcd whether two lists of endpoints reach one
	// cluster, when a coordinator serves Ledger's workspace on other
	// endpoints than Ledger names (another address of one cluster, or
	// another member). Default nil, which means such a coordinator serves
	// another ledger.
	AskCluster leasegate.ClusterAsker
	// Logger; nil means no logging.
	Logger hclog.Logger
	// Clock times the status sent again to open pages while the ledger is
	// degraded (degradedRefresh); nil means the real clock.
	Clock clock.Clock
}

// Validate reports a config the console cannot run with.
func (c Config) Validate() error {
	if c.Service == nil {
		return errors.New("console: no coordinator service")
	}
	if c.Operator == "" {
		return errors.New("console: no operator name to record resolutions under")
	}
	return nil
}
