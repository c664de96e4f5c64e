package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// jnode is a JSON value and where it lies in the text it was read from,
// so install and uninstall can change a settings file by adding or
// removing exactly their own entries and leave every other byte as the
// user wrote it.
type jnode struct {
	start, end int    // the value's bytes, [start, end)
	kind       byte   // '{', '[', or 0 for a scalar
	members    []jmem // of an object
	elems      []*jnode
}

// jmem is an object member: its key and where the key starts.
type jmem struct {
	key      string
	keyStart int
	val      *jnode
}

// member returns the value of key, or nil.
func (n *jnode) member(key string) *jnode {
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// parseText reads one JSON value with its offsets; only whitespace may
// follow it.
func parseText(data []byte) (*jnode, error) {
	p := &jparser{data: data}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.ws(); p.i != len(data) {
		return nil, fmt.Errorf("text after the JSON value at byte %d", p.i)
	}
	return n, nil
}

type jparser struct {
	data []byte
	i    int
}

func (p *jparser) ws() {
	for p.i < len(p.data) && (p.data[p.i] == ' ' || p.data[p.i] == '\t' || p.data[p.i] == '\n' || p.data[p.i] == '\r') {
		p.i++
	}
}

var errJSONEnd = errors.New("unexpected end of JSON")

func (p *jparser) value() (*jnode, error) {
	p.ws()
	if p.i >= len(p.data) {
		return nil, errJSONEnd
	}
	switch p.data[p.i] {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		start := p.i
		if err := p.str(); err != nil {
			return nil, err
		}
		return &jnode{start: start, end: p.i}, nil
	}
	start := p.i
	for p.i < len(p.data) && !bytes.ContainsRune([]byte(",]} \t\r\n"), rune(p.data[p.i])) {
		p.i++
	}
	if !json.Valid(p.data[start:p.i]) {
		return nil, fmt.Errorf("invalid JSON value at byte %d", start)
	}
	return &jnode{start: start, end: p.i}, nil
}

func (p *jparser) str() error {
	for p.i++; p.i < len(p.data); p.i++ {
		switch p.data[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			return nil
		}
	}
	return errJSONEnd
}

func (p *jparser) object() (*jnode, error) {
	n := &jnode{start: p.i, kind: '{'}
	p.i++
	for first := true; ; first = false {
		p.ws()
		if p.i < len(p.data) && p.data[p.i] == '}' && first {
			break
		}
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, fmt.Errorf("object key expected at byte %d", p.i)
		}
		ks := p.i
		if err := p.str(); err != nil {
			return nil, err
		}
		var key string
		if err := json.Unmarshal(p.data[ks:p.i], &key); err != nil {
			return nil, fmt.Errorf("object key at byte %d: %w", ks, err)
		}
		if p.ws(); p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, fmt.Errorf("':' expected at byte %d", p.i)
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmem{key: key, keyStart: ks, val: v})
		if p.ws(); p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i >= len(p.data) || p.data[p.i] != '}' {
			return nil, fmt.Errorf("',' or '}' expected at byte %d", p.i)
		}
		break
	}
	p.i++
	n.end = p.i
	return n, nil
}

func (p *jparser) array() (*jnode, error) {
	n := &jnode{start: p.i, kind: '['}
	p.i++
	for first := true; ; first = false {
		p.ws()
		if p.i < len(p.data) && p.data[p.i] == ']' && first {
			break
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if p.ws(); p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i >= len(p.data) || p.data[p.i] != ']' {
			return nil, fmt.Errorf("',' or ']' expected at byte %d", p.i)
		}
		break
	}
	p.i++
	n.end = p.i
	return n, nil
}

// layout is how a file indents: the unit one level adds.
func layout(data []byte, root *jnode) string {
	if len(root.members) > 0 {
		if ind, ok := lineIndent(data, root.members[0].keyStart); ok && ind != "" {
			return ind
		}
	}
	return "  "
}

// lineIndent returns the whitespace that starts the line holding byte
// at, and whether nothing but that whitespace comes before at on it.
func lineIndent(data []byte, at int) (string, bool) {
	ls := bytes.LastIndexByte(data[:at], '\n') + 1
	i := ls
	for i < at && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return string(data[ls:i]), i == at
}

// childStart is where child i of container n starts: a member's key, or
// an element.
func (n *jnode) childStart(i int) int {
	if n.kind == '{' {
		return n.members[i].keyStart
	}
	return n.elems[i].start
}

func (n *jnode) childEnd(i int) int {
	if n.kind == '{' {
		return n.members[i].val.end
	}
	return n.elems[i].end
}

func (n *jnode) children() int {
	if n.kind == '{' {
		return len(n.members)
	}
	return len(n.elems)
}

// appendChild returns data with a child added at the end of container
// n: the member `key: val` when key is not nil, else the element val
// (both compact JSON). It is laid out like its siblings: on a line of its
// own at their indentation, or on their line when they share the
// container's.
func appendChild(data []byte, n *jnode, key, val []byte, unit string) ([]byte, error) {
	base, _ := lineIndent(data, n.start)
	child := func(ind string, compact bool) ([]byte, error) {
		body, err := val, error(nil)
		if !compact {
			body, err = indentAt(val, ind, unit)
		}
		if err != nil || key == nil {
			return body, err
		}
		return append(append(append([]byte(nil), key...), ": "...), body...), nil
	}
	k := n.children()
	if k == 0 {
		ind := base + unit
		body, err := child(ind, false)
		if err != nil {
			return nil, err
		}
		ins := append(append([]byte("\n"+ind), body...), "\n"+base...)
		return splice(data, n.start+1, n.end-1, newlines(data, ins)), nil
	}
	return appendAfter(data, n, child)
}

// appendAfter adds a child after the last of n's children.
func appendAfter(data []byte, n *jnode, child func(string, bool) ([]byte, error)) ([]byte, error) {
	k := n.children()
	last := n.childEnd(k - 1)
	ind, ownLine := lineIndent(data, n.childStart(k-1))
	sep := ",\n" + ind
	if !ownLine { // siblings on the container's line: stay compact
		sep = ", "
	}
	body, err := child(ind, !ownLine)
	if err != nil {
		return nil, err
	}
	return splice(data, last, last, newlines(data, append([]byte(sep), body...))), nil
}

// newlines writes the line ends of ins as data's: CRLF in a CRLF file.
func newlines(data, ins []byte) []byte {
	if !bytes.Contains(data, []byte("\r\n")) {
		return ins
	}
	return bytes.ReplaceAll(ins, []byte("\n"), []byte("\r\n"))
}

// removeChild returns data without child i of container n and the comma
// and space that joined it to a sibling, so that removing what
// appendChild added gives back the bytes before it.
func removeChild(data []byte, n *jnode, i int) []byte {
	switch k := n.children(); {
	case k == 1:
		return splice(data, n.start+1, n.end-1, nil)
	case i > 0:
		return splice(data, n.childEnd(i-1), n.childEnd(i), nil)
	default:
		return splice(data, n.childStart(0), n.childStart(1), nil)
	}
}

// replaceNode returns data with node n replaced by v (compact JSON), laid
// out at n's indentation.
func replaceNode(data []byte, n *jnode, v []byte, unit string) ([]byte, error) {
	ind, _ := lineIndent(data, n.start)
	body, err := indentAt(v, ind, unit)
	if err != nil {
		return nil, err
	}
	return splice(data, n.start, n.end, body), nil
}

// indentAt lays out compact JSON as json.Indent does, its lines after the
// first prefixed with ind.
func indentAt(v []byte, ind, unit string) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, v, ind, unit); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func splice(data []byte, from, to int, ins []byte) []byte {
	out := make([]byte, 0, len(data)-(to-from)+len(ins))
	out = append(out, data[:from]...)
	out = append(out, ins...)
	return append(out, data[to:]...)
}
