package console

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/leasegate/leasegate"
)

var (
	commitLatencyDesc = prometheus.NewDesc("leasegate_coordinator_commit_latency_seconds",
		"Time from a decision's events being queued for the ledger to their being durable.", nil, nil)
	commitBatchDesc = prometheus.NewDesc("leasegate_coordinator_commit_batch_events",
		"Events per ledger commit (one fsync): the group commit's batch size.", nil, nil)
	committedDesc  = prometheus.NewDesc("leasegate_coordinator_committed_events_total", "Events the coordinator made durable since it started.", nil, nil)
	headroomDesc   = prometheus.NewDesc("leasegate_coordinator_journal_headroom_bytes", "Bytes the ledger's journal can still take before writes are refused.", nil, nil)
	goroutinesDesc = prometheus.NewDesc("leasegate_coordinator_goroutines", "Goroutines of the coordinator's process.", nil, nil)
)

// statsCollector reads the coordinator's own figures (GET /v1/stats) at
// each scrape; a coordinator that does not answer adds none.
type statsCollector struct{ svc Service }

var _ prometheus.Collector = (*statsCollector)(nil)

// Describe sends the descriptors.
func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{commitLatencyDesc, commitBatchDesc, committedDesc, headroomDesc, goroutinesDesc} {
		ch <- d
	}
}

// Collect asks the coordinator for its figures.
func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	st, err := c.svc.Stats(ctx)
	if err != nil {
		return
	}
	ch <- constHistogram(commitLatencyDesc, st.CommitLatency)
	ch <- constHistogram(commitBatchDesc, st.CommitBatch)
	ch <- prometheus.MustNewConstMetric(committedDesc, prometheus.CounterValue, float64(st.CommittedEvents))
	if st.JournalHeadroom >= 0 {
		ch <- prometheus.MustNewConstMetric(headroomDesc, prometheus.GaugeValue, float64(st.JournalHeadroom))
	}
	ch <- prometheus.MustNewConstMetric(goroutinesDesc, prometheus.GaugeValue, float64(st.Goroutines))
}

// constHistogram is h as a Prometheus histogram of desc.
func constHistogram(desc *prometheus.Desc, h leasegate.Histogram) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	for i, b := range h.Bounds {
		if i < len(h.Counts) {
			buckets[b] = h.Counts[i]
		}
	}
	return prometheus.MustNewConstHistogram(desc, h.Count, h.Sum, buckets)
}
