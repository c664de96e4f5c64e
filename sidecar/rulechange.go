package sidecar

import (
	"context"
	"syscall"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/intercept"
)

// recordRuleChanges records, before the syscall runs, each file of m that
// changes the gating rule or what git runs (workspace.RuleFile), as a
// rule.changed event naming this worker. A change that cannot be recorded
// does not happen: the syscall fails with EACCES, as a gated write the
// coordinator cannot grant would wait and fail.
func (s *Sidecar) recordRuleChanges(ctx context.Context, m intercept.Mutation) error {
	for _, abs := range m.Paths {
		name, rule := s.cfg.Workspace.RuleFile(abs)
		if !rule {
			continue
		}
		w := leasegate.UngatedWrite{Path: name, Op: string(m.Op), Reporter: s.cfg.Name, Rule: true}
		if err := s.cfg.Client.ReportUngated(ctx, w); err != nil {
			s.notef("%s of %s refused: the change could not be recorded: %v", m.Op, name, err)
			return syscall.EACCES
		}
	}
	return nil
}
