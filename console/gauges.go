package console

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/leasegate/leasegate/gate"
)

// scrapeTimeout bounds the status call of one scrape.
const scrapeTimeout = 5 * time.Second

var (
	activeLeasesDesc = prometheus.NewDesc("leasegate_active_leases", "Active leases, by kind.", []string{"kind"}, nil)
	ownersDesc       = prometheus.NewDesc("leasegate_owners", "Registered owners, by liveness.", []string{"liveness"}, nil)
	contendedDesc    = prometheus.NewDesc("leasegate_contentions_waiting", "Denied mutations waiting for their one retry.", nil, nil)
	openBlockersDesc = prometheus.NewDesc("leasegate_blockers_open", "Blocker reports waiting for an operator.", nil, nil)
	ledgerSeqDesc    = prometheus.NewDesc("leasegate_ledger_last_seq", "Sequence number of the last event committed to the ledger.", nil, nil)
	degradedDesc     = prometheus.NewDesc("leasegate_ledger_degraded", "1 while the ledger is degraded (its journal cannot be copied), else 0.", nil, nil)
	upDesc           = prometheus.NewDesc("leasegate_coordinator_up", "1 when the coordinator answered the scrape's status call, else 0.", nil, nil)
)

// statusCollector reads the gauges from one coordinator status per scrape.
type statusCollector struct{ svc Service }

var _ prometheus.Collector = (*statusCollector)(nil)

// Describe sends every gauge's descriptor.
func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{activeLeasesDesc, ownersDesc, contendedDesc, openBlockersDesc, ledgerSeqDesc, degradedDesc, upDesc} {
		ch <- d
	}
}

// Collect asks the coordinator for its status and sends the gauges.
func (c *statusCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	st, err := c.svc.Status(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 1)
	kinds := map[gate.Kind]int{gate.KindAuto: 0, gate.KindCheckout: 0}
	for _, l := range st.Leases {
		kinds[l.Kind]++
	}
	for k, n := range kinds {
		ch <- prometheus.MustNewConstMetric(activeLeasesDesc, prometheus.GaugeValue, float64(n), string(k))
	}
	live := map[gate.LivenessStatus]int{gate.Alive: 0, gate.Stopped: 0, gate.Dead: 0, gate.Unknown: 0}
	for _, o := range st.Owners {
		live[o.Liveness.Status]++
	}
	for s, n := range live {
		ch <- prometheus.MustNewConstMetric(ownersDesc, prometheus.GaugeValue, float64(n), string(s))
	}
	ch <- prometheus.MustNewConstMetric(contendedDesc, prometheus.GaugeValue, float64(len(st.Contentions)))
	ch <- prometheus.MustNewConstMetric(openBlockersDesc, prometheus.GaugeValue, float64(len(st.Blockers)))
	ch <- prometheus.MustNewConstMetric(ledgerSeqDesc, prometheus.GaugeValue, float64(st.LastSeq))
	ch <- prometheus.MustNewConstMetric(degradedDesc, prometheus.GaugeValue, b2f(st.LedgerWarning != ""))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
