package gate_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// simulation drives a world with random but valid traffic: every event
// comes from Decide or from what the coordinator's sweeps would append.
type simulation struct {
	w      *world
	r      *rand.Rand
	now    time.Time
	owners []string
	rules  []gate.PairRule
	files  []string // simFiles, or simFiles with other spellings
	globs  []string
}

var simFiles = []string{"src/a.go", "src/a_test.go", "src/b.go", "docs/api.md", "docs/guide/intro.md", "README.md", "lib/x.ts", "tests/x.test.ts"}
var simGlobs = []string{"docs/**", "docs/*", "src/*.go", "**/*.md", "lib/**", "tests/**", "src/**"}

// simCases are simFiles and simGlobs in other spellings, for a table that
// folds case.
var simCases = []string{"SRC/A.go", "src/A_test.go", "Src/b.GO", "DOCS/Api.md", "docs/Guide/INTRO.md", "readme.md", "Lib/X.ts", "tests/X.Test.TS"}
var simCaseGlobs = []string{"Docs/**", "DOCS/*", "src/*.GO", "**/*.MD", "LIB/**", "Tests/**"}

func (s *simulation) step() {
	s.now = s.now.Add(time.Duration(s.r.IntN(90)) * time.Minute)
	who := s.owners[s.r.IntN(len(s.owners))]
	switch n := s.r.IntN(12); {
	case n < 4:
		paths := []string{s.files[s.r.IntN(len(s.files))], s.files[s.r.IntN(len(s.files))]}
		if paths[0] == paths[1] {
			paths = paths[:1]
		}
		s.w.decide(write(who, gate.ExpandPairs(paths, s.rules)...), s.now)
	case n < 6:
		s.w.decide(s.randCheckout(who), s.now)
	case n < 9:
		s.holderOp()
	case n < 10:
		s.sweep()
	case n < 11:
		s.reclaim(who)
	default:
		s.w.mustApply(gate.Event{Type: gate.EventContention, At: s.now, Actor: who, Path: s.files[s.r.IntN(len(s.files))]})
	}
}

func (s *simulation) randCheckout(who string) gate.Request {
	sc := sparse(s.globs[s.r.IntN(len(s.globs))])
	if s.r.IntN(10) == 0 {
		sc = fullScope()
	}
	req := checkout(who, sc)
	req.TTL = time.Duration(1+s.r.IntN(360)) * time.Minute
	return req
}

// holderOp asks renew, release, validate, checkin or evict of a random
// active lease, mostly as its holder with its token; a validated lease
// sometimes gets its one reminder.
func (s *simulation) holderOp() {
	ops := []gate.Op{gate.OpRenew, gate.OpRelease, gate.OpValidate, gate.OpCheckin, gate.OpEvict}
	op := ops[s.r.IntN(len(ops))]
	var act []gate.Lease
	for _, l := range s.w.table.Active() {
		if op != gate.OpRenew || l.Kind == gate.KindCheckout {
			act = append(act, l)
		}
	}
	if len(act) == 0 {
		return
	}
	l := act[s.r.IntN(len(act))]
	req := on(op, l.Owner.Name, l)
	switch {
	case op == gate.OpEvict:
		req = evict("root", l, "maintenance")
	case op == gate.OpRenew:
		req.TTL = time.Duration(s.r.IntN(400)) * time.Minute
	case s.r.IntN(8) == 0:
		req.Token++
	}
	if d := s.w.decide(req, s.now); d.Granted && req.Op == gate.OpValidate && !l.ReminderSent && s.r.IntN(4) == 0 {
		s.w.mustApply(gate.Event{Type: gate.EventReminded, At: s.now, LeaseID: l.ID})
	}
}

// sweep expires every lease whose TTL ran out, as the minute sweep does.
func (s *simulation) sweep() {
	for _, l := range s.w.table.Active() {
		if l.Expired(s.now) {
			s.w.mustApply(gate.Event{Type: gate.EventExpired, At: s.now, Actor: "coordinator", LeaseID: l.ID, Reason: "ttl elapsed"})
		}
	}
}

// reclaim ends the auto leases of an owner found dead.
func (s *simulation) reclaim(who string) {
	for _, l := range s.w.table.ByOwner(who) {
		if l.Kind == gate.KindAuto {
			s.w.mustApply(gate.Event{Type: gate.EventReclaimed, At: s.now, Actor: "coordinator", LeaseID: l.ID, Reason: "owner dead", Data: json.RawMessage(`{"pid":1}`)})
		}
	}
}

// TestReplayIsDeterministic covers INV-0502: a random valid ledger applied
// live and replayed into two new tables gives identical tables, and no two
// owners ever hold overlapping active leases along the way. A table that
// folds case is given paths in several spellings, and replays into tables
// that fold.
func TestReplayIsDeterministic(t *testing.T) {
	t.Run("exact", func(t *testing.T) { testReplay(t, gate.ExactCase, simFiles, simGlobs) })
	t.Run("folded", func(t *testing.T) {
		testReplay(t, gate.FoldCase, append(simCases, simFiles...), append(simCaseGlobs, simGlobs...))
	})
}

func testReplay(t *testing.T, f gate.Folding, files, globs []string) {
	rules, err := gate.CompilePairRules(append([]string{"lib/{name}.ts -> tests/{name}.test.ts"}, gate.DefaultPairRules...))
	if err != nil {
		t.Fatal(err)
	}
	s := &simulation{w: &world{tb: t, table: gate.NewTableFor(f)}, r: testRand(t), now: t0, owners: []string{"alice", "bob", "carol", "dave"},
		rules: rules, files: files, globs: globs}
	for range 3000 {
		s.step()
		checkExclusive(t, s.w.table, f)
	}
	seen := map[gate.EventType]int{}
	for _, e := range s.w.log {
		seen[e.Type]++
	}
	t.Logf("%d events: %v", len(s.w.log), seen)
	for _, typ := range []gate.EventType{gate.EventGranted, gate.EventRenewed, gate.EventReleased, gate.EventCompleted,
		gate.EventExpired, gate.EventEvicted, gate.EventReclaimed, gate.EventReminded} {
		if seen[typ] == 0 {
			t.Fatalf("simulation made no %s event: %v", typ, seen)
		}
	}
	live := snapshot(t, s.w.table)
	for i := range 2 {
		replayed := gate.NewTableFor(f)
		for _, e := range s.w.log {
			if err := replayed.Apply(e); err != nil {
				t.Fatalf("replay %d: Apply(seq %d %s) = %v", i, e.Seq, e.Type, err)
			}
		}
		if got := snapshot(t, replayed); got != live {
			t.Fatalf("replay %d differs:\n%s\nwant\n%s", i, got, live)
		}
	}
}

// snapshot is everything a table exposes, as JSON.
func snapshot(t *testing.T, tb *gate.Table) string {
	t.Helper()
	b, err := json.Marshal(struct {
		All                []gate.Lease
		Active             []gate.Lease
		Docs               []gate.Lease
		LastToken, LastSeq uint64
		ActiveCount, Len   int
	}{tb.All(), tb.Active(), tb.Overlapping(sparse("docs/**")), tb.LastToken(), tb.LastSeq(), tb.ActiveCount(), tb.Len()})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
