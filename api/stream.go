package api

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// StreamProtocol is the Upgrade token of the stream: GET /v1/stream with
// "Connection: Upgrade" and "Upgrade: leasegate-stream/1" switches the
// connection to length-prefixed frames that carry the hot-path calls
// (mutations, lease operations, checks, heartbeats, activity), many at
// once and answered in any order.
//
// A request frame is
//
//	u32 length of the rest | u64 request id (not 0) | u16 length of target | target | JSON body
//
// where target is "POST /v1/mutations" or another of StreamTargets, and
// the body is what the HTTP request would carry. An answer frame is
//
//	u32 length of the rest | u64 request id | u16 HTTP status | JSON body
//
// with the status and body the HTTP API would answer. Integers are
// big-endian. A frame the server cannot read (bad header, over MaxBody)
// is answered with request id 0 and an error body, and the server closes
// the connection after answering the requests before it.
const StreamProtocol = "leasegate-stream/1"

// StreamTargets are the calls the stream carries; {name} is an owner,
// escaped as in the HTTP path.
var StreamTargets = []string{
	"POST /v1/mutations",
	"POST /v1/leases",
	"POST /v1/check",
	"POST /v1/owners/{name}/heartbeat",
	"POST /v1/owners/{name}/activity",
}

const (
	frameLen     = 4     // the length prefix
	requestHead  = 8 + 2 // id, target length
	answerHead   = 8 + 2 // id, status
	maxAnswer    = 64 << 20
	maxTargetLen = 1 << 10
)

// errFrame is a frame that does not follow the protocol.
var errFrame = errors.New("malformed frame")

// frameTooLargeError is a frame longer than the reader's limit; its
// payload is left unread.
type frameTooLargeError struct{ size, limit int64 }

func (e *frameTooLargeError) Error() string {
	return fmt.Sprintf("frame of %d bytes over the %d-byte limit", e.size, e.limit)
}

// readFrame reads one frame's payload (what follows the length prefix).
func readFrame(r *bufio.Reader, limit int64) ([]byte, error) {
	var n [frameLen]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := int64(binary.BigEndian.Uint32(n[:]))
	if size > limit {
		return nil, &frameTooLargeError{size: size, limit: limit}
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// frameReader reads frames from a connection whose reads a deadline may
// cut short: what a cut read had read stays for the next call.
type frameReader struct {
	r    *bufio.Reader
	head [frameLen]byte
	hn   int    // bytes of head read
	body []byte // the payload, once head is complete
	bn   int    // bytes of body read
}

// next returns the next frame's payload, or the error that cut the read.
func (f *frameReader) next(limit int64) ([]byte, error) {
	for f.hn < frameLen {
		n, err := f.r.Read(f.head[f.hn:])
		if f.hn += n; err != nil && f.hn < frameLen {
			return nil, err
		}
	}
	if f.body == nil {
		size := int64(binary.BigEndian.Uint32(f.head[:]))
		if size > limit {
			return nil, &frameTooLargeError{size: size, limit: limit}
		}
		f.body = make([]byte, size)
	}
	for f.bn < len(f.body) {
		n, err := f.r.Read(f.body[f.bn:])
		if f.bn += n; err != nil && f.bn < len(f.body) {
			return nil, err
		}
	}
	p := f.body
	f.hn, f.body, f.bn = 0, nil, 0
	return p, nil
}

// appendRequest appends a request frame to dst.
func appendRequest(dst []byte, id uint64, target string, body []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(requestHead+len(target)+len(body)))
	dst = binary.BigEndian.AppendUint64(dst, id)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(target)))
	dst = append(dst, target...)
	return append(dst, body...)
}

// parseRequest splits a request frame's payload.
func parseRequest(p []byte) (id uint64, target string, body []byte, err error) {
	if len(p) < requestHead {
		return 0, "", nil, fmt.Errorf("%w: %d bytes, shorter than a request header", errFrame, len(p))
	}
	id = binary.BigEndian.Uint64(p)
	tlen := int(binary.BigEndian.Uint16(p[8:]))
	switch {
	case id == 0:
		return 0, "", nil, fmt.Errorf("%w: request id 0", errFrame)
	case tlen == 0 || tlen > maxTargetLen || requestHead+tlen > len(p):
		return 0, "", nil, fmt.Errorf("%w: target length %d in a %d-byte frame", errFrame, tlen, len(p))
	}
	target = string(p[requestHead : requestHead+tlen])
	if _, _, ok := strings.Cut(target, " "); !ok {
		return 0, "", nil, fmt.Errorf("%w: target %q is not \"METHOD /path\"", errFrame, target)
	}
	return id, target, p[requestHead+tlen:], nil
}

// appendAnswer appends an answer frame to dst.
func appendAnswer(dst []byte, id uint64, status int, body []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(answerHead+len(body)))
	dst = binary.BigEndian.AppendUint64(dst, id)
	dst = binary.BigEndian.AppendUint16(dst, uint16(status))
	return append(dst, body...)
}

// putAnswerHead fills in the head of an answer frame whose body follows
// it in frame.
func putAnswerHead(frame []byte, id uint64, status int) {
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-frameLen))
	binary.BigEndian.PutUint64(frame[frameLen:], id)
	binary.BigEndian.PutUint16(frame[frameLen+8:], uint16(status))
}

// parseAnswer splits an answer frame's payload.
func parseAnswer(p []byte) (id uint64, status int, body []byte, err error) {
	if len(p) < answerHead {
		return 0, 0, nil, fmt.Errorf("%w: %d bytes, shorter than an answer header", errFrame, len(p))
	}
	id, status = binary.BigEndian.Uint64(p), int(binary.BigEndian.Uint16(p[8:]))
	if status < 100 || status > 599 {
		return 0, 0, nil, fmt.Errorf("%w: status %d", errFrame, status)
	}
	return id, status, p[answerHead:], nil
}
