package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/leasegate/leasegate/gate"
)

// A journal record holds the events of one Append, so a commit torn by a
// crash loses whole calls, never part of one:
//
//	u32 length of the body | u32 CRC-32C of the body | body
//	body: u64 Seq of the first event | u32 event count | per event: u32 length, JSON
//
// Integers are big-endian. A zero length ends a segment's records, as does
// a record that does not check out or does not continue the sequence.
const (
	recordHead = 8  // length and CRC
	bodyHead   = 12 // first Seq and count
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// entry is one encoded event: its Seq and its JSON, the value stored under
// the Seq's key in the bbolt file.
type entry struct {
	seq   uint64
	value []byte
}

// span is where frame put an event's JSON in its buffer; the buffer may
// still move as it grows, so values are cut once it is complete.
type span struct {
	seq      uint64
	from, to int
}

// frame encodes the events of one call as a journal record at the end of
// buf, numbering them from first and setting their Seq. On error buf is
// returned as it was.
func frame(buf []byte, evs []gate.Event, first uint64) ([]byte, []span, error) {
	start := len(buf)
	buf = append(buf, make([]byte, recordHead+bodyHead)...)
	spans := make([]span, len(evs))
	for i := range evs {
		evs[i].Seq = first + uint64(i)
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		e := evs[i].UTC()
		var err error
		if buf, err = appendEventJSON(buf, &e); err != nil {
			return buf[:start], nil, fmt.Errorf("append: encode event %d of %d (%s): %w", i+1, len(evs), evs[i].Type, err)
		}
		spans[i] = span{seq: evs[i].Seq, from: at + 4, to: len(buf) - 1} // without the newline
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	rec := buf[start:]
	binary.BigEndian.PutUint64(rec[recordHead:], first)
	binary.BigEndian.PutUint32(rec[recordHead+8:], uint32(len(evs)))
	body := rec[recordHead:]
	binary.BigEndian.PutUint32(rec, uint32(len(body)))
	binary.BigEndian.PutUint32(rec[4:], crc32.Checksum(body, castagnoli))
	return buf, spans, nil
}

// cut turns spans into entries whose values point into buf.
func cut(buf []byte, spans []span) []entry {
	ents := make([]entry, len(spans))
	for i, s := range spans {
		ents[i] = entry{seq: s.seq, value: buf[s.from:s.to]}
	}
	return ents
}

// unframe reads the records at the start of a segment as long as they
// check out and continue one sequence, and returns their events and the
// offset where they end.
func unframe(seg []byte) ([]entry, int) {
	var out []entry
	off := 0
	for {
		ents, n, err := readRecord(seg, off)
		if err != nil || (len(out) > 0 && ents[0].seq != out[len(out)-1].seq+1) {
			return out, off
		}
		out = append(out, ents...)
		off += n
	}
}

// readRecord reads the record at off: its events and its length, or what
// keeps it from being read.
func readRecord(seg []byte, off int) ([]entry, int, error) {
	rest := seg[off:]
	if len(rest) < recordHead+bodyHead {
		return nil, 0, errors.New("end of segment")
	}
	n := int64(binary.BigEndian.Uint32(rest))
	if n < bodyHead || n > int64(len(rest)-recordHead) {
		return nil, 0, fmt.Errorf("record length %d does not fit", n)
	}
	body := rest[recordHead : recordHead+n]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(rest[4:]) {
		return nil, 0, errors.New("record checksum mismatch")
	}
	ents, ok := unframeBody(body)
	if !ok || len(ents) == 0 {
		return nil, 0, errors.New("record body malformed")
	}
	return ents, recordHead + int(n), nil
}

// newerRecord looks for a record that checks out and holds events after
// seq anywhere in seg from byte from on, and returns its offset and first
// Seq.
func newerRecord(seg []byte, from int, seq uint64) (int, uint64, bool) {
	for off := from; off+recordHead+bodyHead <= len(seg); off++ {
		n := binary.BigEndian.Uint32(seg[off:])
		if n < bodyHead || int64(n) > int64(len(seg)-off-recordHead) {
			continue
		}
		if first := binary.BigEndian.Uint64(seg[off+recordHead:]); first <= seq {
			continue
		}
		if ents, _, err := readRecord(seg, off); err == nil {
			return off, ents[0].seq, true
		}
	}
	return 0, 0, false
}

// unframeBody splits a checked record body into its events.
func unframeBody(body []byte) ([]entry, bool) {
	first := binary.BigEndian.Uint64(body)
	count := binary.BigEndian.Uint32(body[8:])
	rest := body[bodyHead:]
	ents := make([]entry, 0, min(int(count), len(rest)/4))
	for i := range count {
		if len(rest) < 4 {
			return nil, false
		}
		n := binary.BigEndian.Uint32(rest)
		if int64(n) > int64(len(rest)-4) || n == 0 {
			return nil, false
		}
		v := bytes.TrimSuffix(rest[4:4+n], []byte{'\n'})
		ents = append(ents, entry{seq: first + uint64(i), value: v})
		rest = rest[4+n:]
	}
	return ents, len(rest) == 0
}
