package gate_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// BenchmarkDecideAcquireRelease measures one acquire+release pair in
// process: Decide, Apply the grant, Decide the release, Apply it. Targets
// (brief §5): 2 µs uncontended, 5 µs among 100,000 active leases. The
// -folded cases are a table that folds case (Windows), asked in
// another case than its leases were granted; -mac cases one that also
// folds Unicode normalization (macOS), asked the same ASCII names, and
// -mac-accented one asked a name whose accent is decomposed, which every
// look-up composes.
func BenchmarkDecideAcquireRelease(b *testing.B) {
	b.Run("uncontended", func(b *testing.B) {
		benchPairs(b, gate.NewTable(), []string{"src/main.go"})
	})
	b.Run("uncontended-identity", func(b *testing.B) { // the file's identity comes with the request
		benchPairs(b, gate.NewTable(), []string{"src/main.go"}, gate.File{Path: "src/main.go", Dev: 2049, Ino: 1234})
	})
	b.Run("100k-leases", func(b *testing.B) {
		benchPairs(b, bigTable(b, gate.ExactCase), newPaths("pkg%03d/dir%02d/new%03d.go"))
	})
	b.Run("uncontended-folded", func(b *testing.B) {
		benchPairs(b, gate.NewTableFor(gate.FoldCase), []string{"Src/Main.go"})
	})
	b.Run("100k-leases-folded", func(b *testing.B) {
		benchPairs(b, bigTable(b, gate.FoldCase), newPaths("PKG%03d/Dir%02d/NEW%03d.go"))
	})
	b.Run("uncontended-mac", func(b *testing.B) {
		benchPairs(b, gate.NewTableFor(gate.FoldCase|gate.FoldNormalization), []string{"Src/Main.go"})
	})
	b.Run("uncontended-mac-accented", func(b *testing.B) {
		benchPairs(b, gate.NewTableFor(gate.FoldCase|gate.FoldNormalization), []string{"Docs/Cafe\u0301.md"})
	})
	b.Run("100k-leases-mac", func(b *testing.B) {
		benchPairs(b, bigTable(b, gate.FoldCase|gate.FoldNormalization), newPaths("PKG%03d/Dir%02d/NEW%03d.go"))
	})
}

// newPaths names 1,000 files bigTable holds no lease on, each beside
// leased ones, by format (package, directory, file).
func newPaths(format string) []string {
	var free []string
	for i := range 1000 {
		free = append(free, fmt.Sprintf(format, (i*7)%1000, i%10, i))
	}
	return free
}

// benchPairs acquires and releases paths in turn, as owner "bench", with
// files as the identities the requests carry. Lease
// ids come from a ring; the released leases are pruned, off the clock,
// before the ring wraps.
func benchPairs(b *testing.B, t *gate.Table, paths []string, files ...gate.File) {
	const ring = 4096
	ids := make([]gate.LeaseID, ring)
	for i := range ids {
		ids[i] = gate.LeaseID(fmt.Sprintf("01JBENCH%018d", i))
	}
	acq := write("bench", "")
	acq.Scope.Files = files
	rel := gate.Request{Op: gate.OpRelease, Owner: owner("bench")}
	now, seq := t0, t.LastSeq()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		acq.Scope.Paths[0] = paths[i%len(paths)]
		d := gate.Decide(acq, t, now)
		if !d.Granted || len(d.Events) != 1 {
			b.Fatalf("Decide(acquire %s) = %s (%s) with %d events", acq.Scope.Paths[0], d.Reason, d.Message, len(d.Events))
		}
		seq++
		g := d.Events[0]
		g.Seq, g.Lease.ID = seq, ids[i%ring]
		if err := t.Apply(g); err != nil {
			b.Fatal(err)
		}
		rel.LeaseID, rel.Token = g.Lease.ID, g.Lease.FencingToken
		d = gate.Decide(rel, t, now)
		if !d.Granted || len(d.Events) != 1 {
			b.Fatalf("Decide(release) = %s (%s)", d.Reason, d.Message)
		}
		seq++
		d.Events[0].Seq = seq
		if err := t.Apply(d.Events[0]); err != nil {
			b.Fatal(err)
		}
		if (i+1)%ring == 0 {
			b.StopTimer()
			t.Prune(now.Add(time.Nanosecond))
			b.StartTimer()
		}
	}
}

// bigTable holds 100,000 active leases of 100 owners over 1,000 packages:
// per package 90 files (pkgNNN/dirNN/fileNNN.go) and 10 globs
// (pkgNNN/docs/**, pkgNNN/*.md and pkgNNN/dirNN/*.pb.go for 8 dirs).
func bigTable(b *testing.B, f gate.Folding) *gate.Table {
	b.Helper()
	t := gate.NewTableFor(f)
	var n uint64
	add := func(s gate.Scope) {
		n++
		e := grantEvent(gate.LeaseID(fmt.Sprintf("01JBIG%020d", n)), fmt.Sprintf("agent%02d", n%100), n, s, time.Time{})
		e.Seq = n
		if err := t.Apply(e); err != nil {
			b.Fatal(err)
		}
	}
	for p := range 1000 {
		for d := range 10 {
			for f := range 9 {
				add(fileScope(fmt.Sprintf("pkg%03d/dir%02d/file%03d.go", p, d, f)))
			}
		}
		add(sparse(fmt.Sprintf("pkg%03d/docs/**", p)))
		add(sparse(fmt.Sprintf("pkg%03d/*.md", p)))
		for d := range 8 {
			add(sparse(fmt.Sprintf("pkg%03d/dir%02d/*.pb.go", p, d)))
		}
	}
	if t.ActiveCount() != 100_000 {
		b.Fatalf("ActiveCount() = %d, want 100000", t.ActiveCount())
	}
	return t
}

// BenchmarkMapBaseline is the floor the pair is compared with: one set and
// one delete in a Go map, empty and beside 100,000 entries.
func BenchmarkMapBaseline(b *testing.B) {
	b.Run("empty", func(b *testing.B) { benchMap(b, map[string]string{}) })
	b.Run("100k", func(b *testing.B) {
		m := make(map[string]string, 100_000)
		for i := range 100_000 {
			m[fmt.Sprintf("pkg%03d/dir%02d/file%03d.go", i%1000, (i/1000)%10, i/10000)] = "agent"
		}
		benchMap(b, m)
	})
}

func benchMap(b *testing.B, m map[string]string) {
	paths := []string{"src/main.go"}
	if len(m) > 0 {
		paths = paths[:0]
		for i := range 1000 {
			paths = append(paths, fmt.Sprintf("pkg%03d/dir%02d/new%03d.go", (i*7)%1000, i%10, i))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := paths[i%len(paths)]
		m[p] = "bench"
		delete(m, p)
	}
}

// BenchmarkLivenessScan measures what the coordinator's liveness check
// asks the table twice a second, the owners holding auto leases, with 100
// leases active: alone, and among 200,000 ended ones, which the table
// remembers for a day. The two should cost the same.
func BenchmarkLivenessScan(b *testing.B) {
	for _, ended := range []int{0, 200_000} {
		b.Run(fmt.Sprintf("ended=%d", ended), func(b *testing.B) {
			w := newWorld(b)
			token := uint64(0)
			grant := func(i int) gate.LeaseID {
				token++
				id := gate.LeaseID(fmt.Sprintf("01JSCAN%019d", token))
				w.mustApply(grantEvent(id, fmt.Sprint("agent", i%10), token, fileScope(fmt.Sprintf("d%d/f%d", i%100, i)), time.Time{}))
				return id
			}
			for i := range ended {
				id := grant(i)
				w.mustApply(gate.Event{Type: gate.EventReleased, At: t0, Actor: fmt.Sprint("agent", i%10), LeaseID: id})
			}
			for i := range 100 {
				grant(ended + i)
			}
			b.ReportAllocs()
			for b.Loop() {
				if len(w.table.HolderNames(gate.KindAuto)) != 10 {
					b.Fatal("want 10 owners")
				}
			}
		})
	}
}
