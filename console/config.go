package console

import (
	"errors"

	"github.com/hashicorp/go-hclog"
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
	// Logger; nil means no logging.
	Logger hclog.Logger
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
