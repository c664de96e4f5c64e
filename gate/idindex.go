package gate

// idIndex finds the slot of a lease by its id, in about half the memory of
// a map from id to slot: the ids stay in the records, and the index is one
// array of 8-byte entries under open addressing with linear probing.
// An entry is the id's 32-bit hash (high half) and 1 + the slot (low half),
// 0 when empty; ids are compared only when hashes agree.
type idIndex struct {
	entries []uint64 // a power of two long, or empty
	n       int
}

// idIndex grows when it would be fuller than maxLoadNum/maxLoadDen. With
// the hash beside each slot a probe is a read of the next entry, eight to
// a cache line, so a high load costs little.
const (
	maxLoadNum = 4
	maxLoadDen = 5
)

// keptEntries is the size below which the array never shrinks (128 KiB),
// so that leases coming and going do not reallocate it.
const keptEntries = 1 << 14

// get returns the slot of the id whose hash is h, for which is tells
// whether a slot holds that id.
func (x *idIndex) get(h uint32, is func(int32) bool) (int32, bool) {
	if x.n == 0 {
		return 0, false
	}
	mask := uint64(len(x.entries) - 1)
	for i := uint64(h) & mask; ; i = (i + 1) & mask {
		e := x.entries[i]
		if e == 0 {
			return 0, false
		}
		if uint32(e>>32) == h {
			if s := int32(uint32(e)) - 1; is(s) {
				return s, true
			}
		}
	}
}

// put adds the id whose hash is h, not in the index yet, at slot s.
func (x *idIndex) put(h uint32, s int32) {
	if (x.n+1)*maxLoadDen > len(x.entries)*maxLoadNum {
		x.resize(max(16, 2*len(x.entries)))
	}
	x.insert(uint64(h)<<32 | uint64(uint32(s+1)))
	x.n++
}

func (x *idIndex) insert(e uint64) {
	mask := uint64(len(x.entries) - 1)
	i := (e >> 32) & mask
	for x.entries[i] != 0 {
		i = (i + 1) & mask
	}
	x.entries[i] = e
}

// resize moves the entries to an array of size entries.
func (x *idIndex) resize(size int) {
	old := x.entries
	x.entries = make([]uint64, size)
	for _, e := range old {
		if e != 0 {
			x.insert(e)
		}
	}
}

// delete drops slot s, of the id whose hash is h, shifting back the entries after it that probed past
// it, so that no probe sequence gets a hole (no tombstones).
func (x *idIndex) delete(h uint32, s int32) {
	mask := uint64(len(x.entries) - 1)
	i := uint64(h) & mask
	for x.entries[i] != uint64(h)<<32|uint64(uint32(s+1)) {
		i = (i + 1) & mask
	}
	for j := i; ; {
		x.entries[i] = 0
		for {
			j = (j + 1) & mask
			e := x.entries[j]
			if e == 0 {
				x.n--
				x.shrink()
				return
			}
			if home := (e >> 32) & mask; !between(i, home, j) {
				x.entries[i] = e
				i = j
				break
			}
		}
	}
}

// shrink halves the array once it is less than an eighth full, to give
// back what a burst of leases took; it keeps at least keptEntries.
func (x *idIndex) shrink() {
	if len(x.entries) > keptEntries && x.n*8 < len(x.entries) {
		x.resize(len(x.entries) / 2)
	}
}

// between reports whether home lies cyclically in (i, j]: an entry there
// stays, as moving it to i would put it before its home.
func between(i, home, j uint64) bool {
	if i <= j {
		return i < home && home <= j
	}
	return i < home || home <= j
}

// textHash is the FNV-1a hash of id, mixed so that its low bits (the home
// entry) depend on every byte.
func textHash(id LeaseID) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h = (h ^ uint32(id[i])) * 16777619
	}
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	return h
}

// len is the number of ids indexed.
func (x *idIndex) len() int { return x.n }
