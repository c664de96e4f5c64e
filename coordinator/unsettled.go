package coordinator

import (
	"encoding/json"

	"github.com/leasegate/leasegate/gate"
)

// unsettledReason is why a contention the ledger left waiting is closed
// when the coordinator starts.
const unsettledReason = "the coordinator ended before deciding it; the write asks again under a new contention"

// noteContention keeps, while the ledger replays, each contention whose
// heartbeat no retry, wake-up, withdrawal or resolution has followed yet.
// What is left when the replay ends waited on a coordinator that is gone:
// its write asks the new one again, under a new contention.
func (c *Coordinator) noteContention(e gate.Event) {
	switch e.Type {
	case gate.EventContention, gate.EventRetry, gate.EventContentionWoken, gate.EventContentionGone, gate.EventContentionResolved:
	default:
		return
	}
	var d struct {
		Contention string `json:"contention_id"`
	}
	if json.Unmarshal(e.Data, &d) != nil || d.Contention == "" {
		return
	}
	if e.Type == gate.EventContention {
		c.unsettled[d.Contention] = e
		return
	}
	delete(c.unsettled, d.Contention)
}

// settleReplayed records as withdrawn each contention the replay left
// waiting, so that the ledger says how it ended (it was left open, its
// write asking again under another id). On a shared ledger a contention
// may be another machine's, waiting on a live coordinator, and is left
// alone. Call once Run's ledger writer runs.
func (c *Coordinator) settleReplayed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, shared := c.shared(); shared || len(c.unsettled) == 0 {
		c.unsettled = nil
		return
	}
	now := c.clock.Now()
	evs := make([]gate.Event, 0, len(c.unsettled))
	for id, hb := range c.unsettled {
		var d heartbeatData
		_ = json.Unmarshal(hb.Data, &d) // its contention id was read from it
		data, _ := json.Marshal(withdrawnData{Contention: id, Paths: []string{hb.Path}, Holder: d.Holder})
		evs = append(evs, gate.Event{Type: gate.EventContentionGone, At: now, Actor: hb.Actor, Path: hb.Path,
			LeaseID: hb.LeaseID, Reason: unsettledReason, Data: data})
	}
	c.unsettled = nil
	if _, err := c.commit(evs); err != nil {
		c.log.Warn("contentions left waiting not recorded as withdrawn", "count", len(evs), "error", err)
	}
}
