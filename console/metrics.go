package console

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// metrics holds every collector of the console, registered in one place
// (newMetrics). Counters count the ledger's events since the console
// started following them; gauges are read from the coordinator's status
// at each scrape.
type metrics struct {
	svc        Service
	reg        *prometheus.Registry
	grants     *prometheus.CounterVec
	contention *prometheus.CounterVec
	denials    *prometheus.CounterVec
	opened     prometheus.Counter
	resolved   *prometheus.CounterVec
	reclaims   *prometheus.CounterVec
	ungated    prometheus.Counter
	undeliver  prometheus.Counter
}

func newMetrics(svc Service, reg *prometheus.Registry) *metrics {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "leasegate", Name: name, Help: help}, labels)
	}
	m := &metrics{svc: svc, reg: reg,
		grants:     counter("grants_total", "Leases granted, by kind.", "kind"),
		contention: counter("contentions_total", "Gated mutations denied and scheduled for their one retry, by reason code.", "reason"),
		denials:    counter("denials_total", "Retries that found the path still held (a blocker opened), by reason code.", "reason"),
		resolved:   counter("blockers_resolved_total", "Blocker reports resolved, by action.", "action"),
		reclaims:   counter("reclaims_total", "Leases reclaimed from dead owners, by the source of the evidence.", "source"),
		opened:     prometheus.NewCounter(prometheus.CounterOpts{Namespace: "leasegate", Name: "blockers_opened_total", Help: "Blocker reports opened."}),
		ungated:    prometheus.NewCounter(prometheus.CounterOpts{Namespace: "leasegate", Name: "ungated_writes_total", Help: "Writes seen on disk that no sidecar gated."}),
		undeliver:  prometheus.NewCounter(prometheus.CounterOpts{Namespace: "leasegate", Name: "notices_undelivered_total", Help: "Notices the webhook could not take."}),
	}
	reg.MustRegister(m.grants, m.contention, m.denials, m.resolved, m.reclaims, m.opened, m.ungated, m.undeliver, &statusCollector{svc: svc}, &statsCollector{svc: svc},
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "leasegate_coordinator", PidFn: coordinatorPID(svc)}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// follow counts the ledger's events from now until ctx ends, picking the
// stream up again where it broke when the coordinator goes away.
func (m *metrics) follow(ctx context.Context) error {
	var last uint64
	if st, err := m.svc.Status(ctx); err == nil {
		last = st.LastSeq
	}
	for ctx.Err() == nil {
		_ = m.svc.Events(ctx, last, true, func(e gate.Event) error {
			last = e.Seq
			m.count(e)
			return nil
		})
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return nil
}

// count adds one ledger event to the counters.
func (m *metrics) count(e gate.Event) {
	switch e.Type {
	case gate.EventGranted:
		if e.Lease != nil {
			m.grants.WithLabelValues(string(e.Lease.Kind)).Inc()
		}
	case gate.EventContention:
		m.contention.WithLabelValues(e.Reason).Inc()
	case gate.EventRetry:
		m.denials.WithLabelValues(e.Reason).Inc()
	case gate.EventBlockerOpened:
		m.opened.Inc()
	case gate.EventBlockerResolved:
		var r blocker.Resolved
		if json.Unmarshal(e.Data, &r) == nil {
			m.resolved.WithLabelValues(string(r.Action)).Inc()
		}
	case gate.EventReclaimed:
		m.reclaims.WithLabelValues(evidenceSource(e.Data)).Inc()
	case gate.EventUngatedWrite:
		m.ungated.Inc()
	case gate.EventNoticeUndelivered:
		m.undeliver.Inc()
	}
}

// evidenceSource is the source a liveness verdict's first evidence names
// ("pidfd: pid 12 exited" -> "pidfd"), or "other".
func evidenceSource(data json.RawMessage) string {
	var v gate.Liveness
	if json.Unmarshal(data, &v) != nil || len(v.Evidence) == 0 {
		return "other"
	}
	src, _, ok := strings.Cut(v.Evidence[0], ":")
	if !ok || len(src) > 24 {
		return "other"
	}
	return src
}
