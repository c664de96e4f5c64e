package etcd

import (
	"fmt"
	"strconv"
)

// keys is the workspace's key layout.
type keys struct{ prefix string }

func newKeys(workspace string) keys { return keys{prefix: "/leasegate/" + workspace + "/ledger/"} }

// head holds the seq of the last committed event, in decimal.
func (k keys) head() string { return k.prefix + "head" }

// records is the prefix of every record key.
func (k keys) records() string { return k.prefix + "e/" }

// record is the key of the record whose first event has seq first. The
// seq is zero-padded so that key order is seq order.
func (k keys) record(first uint64) string { return fmt.Sprintf("%s%020d", k.records(), first) }

// recordsEnd is the end of the record key range.
func (k keys) recordsEnd() string { return k.prefix + "e0" } // '0' follows '/'

func parseSeq(b []byte) (uint64, error) {
	s, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("head %q: %w", b, err)
	}
	return s, nil
}
