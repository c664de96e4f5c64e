package etcd

import (
	"fmt"
	"strconv"
	"strings"
)

// keys is the workspace's key layout.
type keys struct{ prefix, root string }

func newKeys(workspace string) keys {
	return keys{prefix: "/leasegate/" + workspace + "/ledger/", root: "/leasegate/" + workspace + "/"}
}

// members is the prefix of every session's member key.
func (k keys) members() string { return k.root + "members/" }

// member is the key of one session: members/<host>/<lease id in hex>.
func (k keys) member(host string, lease int64) string {
	return fmt.Sprintf("%s%s/%x", k.members(), host, lease)
}

// memberHost is the host of a member key, "" for another key.
func (k keys) memberHost(key string) string {
	rest, ok := strings.CutPrefix(key, k.members())
	if !ok {
		return ""
	}
	host, _, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	return host
}

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
