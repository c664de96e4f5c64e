package console

import (
	"context"
	"fmt"
)

// coordinatorPID returns the PidFn of the coordinator's process collector
// (leasegate_coordinator_process_*: its RSS, CPU, open files): the pid
// the coordinator reports on each scrape, once it is confirmed to be a
// leasegate process as this process sees it, so a coordinator in another
// pid namespace is not mistaken for whatever has its number here.
func coordinatorPID(svc Service) func() (int, error) {
	return func() (int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		h, err := svc.Health(ctx)
		if err != nil {
			return 0, fmt.Errorf("coordinator health: %w", err)
		}
		if err := isLeasegate(h.PID); err != nil {
			return 0, err
		}
		return h.PID, nil
	}
}
