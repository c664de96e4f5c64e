package gate

// packedID is a lease id in canonical ULID text form, held as its 128 bits:
// 16 bytes in the record instead of a string header and 32 bytes of text.
// The canonical form is 26 characters of Crockford's base32 alphabet, upper
// case, the first one at most '7'; it is the only text of its bits, so
// packing loses nothing. Other ids are kept as text.
type packedID struct{ hi, lo uint64 }

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ulidLen is the length of a ULID's text.
const ulidLen = 26

// crockfordValue maps a byte to its value in crockford, or 0xff.
var crockfordValue = func() (v [256]byte) {
	for i := range v {
		v[i] = 0xff
	}
	for i := range len(crockford) {
		v[crockford[i]] = byte(i)
	}
	return v
}()

// packID packs id if it is a canonical ULID. The first 13 characters give
// the top 63 bits and the next 12 the following 60, the last one the low 5.
func packID(id LeaseID) (packedID, bool) {
	if len(id) != ulidLen || id[0] > '7' {
		return packedID{}, false
	}
	var a, b uint64
	var bad byte
	for i := range 13 {
		d := crockfordValue[id[i]]
		a, bad = a<<5|uint64(d&31), bad|d
	}
	for i := 13; i < ulidLen-1; i++ {
		d := crockfordValue[id[i]]
		b, bad = b<<5|uint64(d&31), bad|d
	}
	c := crockfordValue[id[ulidLen-1]]
	if bad|c >= 32 {
		return packedID{}, false
	}
	return packedID{hi: a<<1 | b>>59, lo: b<<5 | uint64(c)}, true
}

// hash is a 32-bit hash of the id.
func (p packedID) hash() uint32 {
	h := (p.hi ^ p.lo*0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	return uint32(h>>32 ^ h)
}

// text writes the id's canonical text into b.
func (p packedID) text(b *[ulidLen]byte) {
	hi, lo := p.hi, p.lo
	for i := ulidLen - 1; i >= 0; i-- {
		b[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
}

func (p packedID) leaseID() LeaseID {
	var b [ulidLen]byte
	p.text(&b)
	return LeaseID(b[:])
}
