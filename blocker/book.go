package blocker

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// Resolved is the data of a blocker.resolved event.
type Resolved struct {
	ID     string    `json:"id"`
	Action Action    `json:"action"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
	Note   string    `json:"note,omitempty"`
}

// OpenedEvent returns the blocker.opened event for a new report: Data is
// the report's JSON, Actor the requester, Path and LeaseID the blocked
// file and the holder's lease (so the audit history of either shows it).
func OpenedEvent(r Report, at time.Time) (gate.Event, error) {
	if err := checkOpened(r); err != nil {
		return gate.Event{}, err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return gate.Event{}, fmt.Errorf("blocker %s: %w", r.ID, err)
	}
	return gate.Event{
		Type: gate.EventBlockerOpened, At: utc(at), Actor: r.Requester.Name,
		Path: r.Path, LeaseID: r.Holder.LeaseID, Data: data,
	}, nil
}

// ResolvedEvent returns the blocker.resolved event recording that by
// resolved blocker id with action a at at. It checks the action, not the
// report: Book.Apply refuses a resolution of a report that is not open.
func ResolvedEvent(id string, a Action, by string, at time.Time, note string) (gate.Event, error) {
	if !a.Valid() {
		return gate.Event{}, fmt.Errorf("resolve %s with %q: %w", id, a, ErrUnknownAction)
	}
	if id == "" {
		return gate.Event{}, fmt.Errorf("resolution without blocker id: %w", ErrInvalidEvent)
	}
	res := Resolved{ID: id, Action: a, By: by, At: utc(at), Note: note}
	data, err := json.Marshal(res)
	if err != nil {
		return gate.Event{}, fmt.Errorf("blocker %s: %w", id, err)
	}
	return gate.Event{Type: gate.EventBlockerResolved, At: res.At, Actor: by, Data: data}, nil
}

// Retried is the data of a blocker.retried event: an operator's retry
// that found the file still held. The report stays open; the event is
// the audit trail's record of the act.
type Retried struct {
	ID   string    `json:"id"`
	By   string    `json:"by"`
	At   time.Time `json:"at"`
	Note string    `json:"note,omitempty"`
}

// RetriedEvent returns the blocker.retried event recording that by
// retried blocker id at at and found its file still held. Book.Apply
// refuses it for a report that is not open, as it refuses a resolution:
// a resolved report is final.
func RetriedEvent(id, by string, at time.Time, note string) (gate.Event, error) {
	if id == "" {
		return gate.Event{}, fmt.Errorf("retry without blocker id: %w", ErrInvalidEvent)
	}
	data, err := json.Marshal(Retried{ID: id, By: by, At: utc(at), Note: note})
	if err != nil {
		return gate.Event{}, fmt.Errorf("blocker %s: %w", id, err)
	}
	return gate.Event{Type: gate.EventBlockerRetried, At: utc(at), Actor: by, Data: data}, nil
}

func checkOpened(r Report) error {
	switch {
	case r.ID == "":
		return fmt.Errorf("report without id: %w", ErrInvalidEvent)
	case r.Status != StatusOpen || r.Resolution != nil:
		return fmt.Errorf("report %s opened as %s: %w", r.ID, r.Status, ErrInvalidEvent)
	}
	return nil
}

// Book is the projection of the ledger's blocker events: every report
// with its current status. Apply is deterministic, so replaying the same
// events gives the same Book. A Book is not safe for concurrent use; the
// coordinator serializes access.
type Book struct {
	reports map[string]Report
}

// NewBook returns an empty Book.
func NewBook() *Book { return &Book{reports: make(map[string]Report)} }

// Clone returns a book with the same reports that shares nothing with b
// that either one changes: Apply replaces a report, never edits it.
func (b *Book) Clone() *Book { return &Book{reports: maps.Clone(b.reports)} }

// Apply folds one event into the book. Events other than blocker.opened,
// blocker.resolved and blocker.retried are ignored; a retry changes no
// report, but only an open one can take it. An event the book cannot take (see the
// package errors) is refused with an error and leaves the book unchanged.
func (b *Book) Apply(e gate.Event) error {
	var err error
	switch e.Type {
	case gate.EventBlockerOpened:
		err = b.open(e.Data)
	case gate.EventBlockerResolved:
		err = b.resolve(e.Data)
	case gate.EventBlockerRetried:
		err = b.retried(e.Data)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("apply %s seq %d: %w", e.Type, e.Seq, err)
	}
	return nil
}

func (b *Book) open(data []byte) error {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	if err := checkOpened(r); err != nil {
		return err
	}
	if _, ok := b.reports[r.ID]; ok {
		return fmt.Errorf("blocker %s: %w", r.ID, ErrExists)
	}
	b.reports[r.ID] = r
	return nil
}

func (b *Book) resolve(data []byte) error {
	var res Resolved
	if err := json.Unmarshal(data, &res); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	r, ok := b.reports[res.ID]
	if !ok {
		return fmt.Errorf("blocker %q: %w", res.ID, ErrNotFound)
	}
	if err := r.Resolve(res.Action, res.By, res.At, res.Note); err != nil {
		return err
	}
	b.reports[res.ID] = r
	return nil
}

func (b *Book) retried(data []byte) error {
	var rt Retried
	if err := json.Unmarshal(data, &rt); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	r, ok := b.reports[rt.ID]
	if !ok {
		return fmt.Errorf("blocker %q: %w", rt.ID, ErrNotFound)
	}
	if r.Status != StatusOpen {
		return fmt.Errorf("retry %s: it is %s: %w", rt.ID, r.Status, ErrNotOpen)
	}
	return nil
}

// Get returns a copy of the report with id.
func (b *Book) Get(id string) (Report, bool) {
	r, ok := b.reports[id]
	if !ok {
		return Report{}, false
	}
	return r.clone(), true
}

// Open returns the open reports, oldest first denial first, then by id.
func (b *Book) Open() []Report {
	return b.filter(func(r Report) bool { return r.Status == StatusOpen })
}

// All returns every report, in the order of Open.
func (b *Book) All() []Report { return b.filter(func(Report) bool { return true }) }

func (b *Book) filter(keep func(Report) bool) []Report {
	var out []Report
	for _, r := range b.reports {
		if keep(r) {
			out = append(out, r.clone())
		}
	}
	slices.SortFunc(out, func(x, y Report) int {
		return cmp.Or(x.FirstDeniedAt.Compare(y.FirstDeniedAt), cmp.Compare(x.ID, y.ID))
	})
	return out
}
