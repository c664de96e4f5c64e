package integration_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// BenchmarkCoordinatorRSS100k fills a real coordinator (the leasegate
// binary, durable bbolt ledger) with 100,000 active leases over its socket
// and reports its resident memory, with the RSS of the same coordinator
// when empty as the baseline from the same run.
func BenchmarkCoordinatorRSS100k(b *testing.B) {
	for range b.N {
		r := newRepo(b, nil)
		empty := rssMiB(b, r.server.Process.Pid)
		b.ReportMetric(statusMiB(b, r.server.Process.Pid, "VmHWM:"), "MiB-peak-empty")
		ctx := context.Background()
		if err := r.client.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "filler"}}); err != nil {
			b.Fatal(err)
		}
		const total, per = 100_000, 500
		for i := 0; i < total; i += per {
			paths := make([]string, per)
			for j := range paths {
				n := i + j
				paths[j] = fmt.Sprintf("pkg%03d/dir%02d/file%05d.txt", n%1000, n/1000%100, n)
			}
			fill(b, r, paths)
		}
		pid := r.server.Process.Pid
		b.ReportMetric(rssMiB(b, pid), "MiB-rss-100k")
		b.ReportMetric(statusMiB(b, pid, "VmHWM:"), "MiB-peak-filling")
		b.ReportMetric(statusMiB(b, pid, "RssAnon:"), "MiB-anon-100k")
		b.ReportMetric(statusMiB(b, pid, "RssFile:"), "MiB-file-100k")
		if got := len(r.status().Leases); got != total {
			b.Fatalf("%d leases, want %d", got, total)
		}
		// What answering for all of them costs on top: the RSS once a
		// status of 100,000 leases was answered, and the most it held.
		b.ReportMetric(rssMiB(b, pid), "MiB-rss-after-status")
		b.ReportMetric(statusMiB(b, pid, "VmHWM:"), "MiB-peak")
		b.ReportMetric(empty, "MiB-rss-empty")
		r.stopServer()
	}
}

// fill has the filler create paths. A batch refused while the ledger's
// journal is copied into the ledger file (filling outruns the copy on a
// busy machine) is sent again once the copy had time to end: what is
// measured is the memory of the leases, not that refusal.
func fill(b *testing.B, r *repo, paths []string) {
	b.Helper()
	for try := 0; ; try++ {
		_, err := r.client.Mutate(context.Background(), leasegate.MutateRequest{Owner: "filler", Op: "create", Paths: paths})
		// A 503 is told as ErrUnavailable with the API's code in its text.
		degraded := errors.Is(err, api.ErrUnavailable) && strings.Contains(err.Error(), string(api.CodeLedgerDegraded))
		if !degraded || try == 100 {
			if err != nil {
				b.Fatal(err)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func rssMiB(tb testing.TB, pid int) float64 { return statusMiB(tb, pid, "VmRSS:") }

func statusMiB(tb testing.TB, pid int, field string) float64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
