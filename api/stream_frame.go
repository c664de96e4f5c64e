package api

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"time"
)

// frameMemory is FrameMemory for every stream of this process.
var frameMemory = newMemoryBudget(FrameMemory)

// readFrame reads the next request frame's payload. Between frames the
// stream may idle; once a frame's first byte is in, the whole frame must
// arrive within FrameTimeout, and its bytes are taken from frameMemory as
// they arrive, so a frame that announces 1 MiB and stalls holds nothing.
// The caller gives len(payload) back to frameMemory once it is answered.
func (sc *serverStream) readFrame(ctx context.Context) ([]byte, error) {
	if _, err := sc.r.Peek(1); err != nil {
		return nil, err
	}
	if p, ok := sc.bufferedFrame(); ok {
		return p, nil
	}
	deadline := time.Now().Add(FrameTimeout)
	_ = sc.conn.SetReadDeadline(deadline)
	defer sc.conn.SetReadDeadline(time.Time{})
	var head [frameLen]byte
	if _, err := io.ReadFull(sc.r, head[:]); err != nil {
		return nil, err
	}
	size := int64(binary.BigEndian.Uint32(head[:]))
	if size > MaxBody {
		return nil, &frameTooLargeError{size: size, limit: MaxBody}
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	buf := make([]byte, 0, min(size, frameChunk))
	for int64(len(buf)) < size {
		n := min(frameChunk, size-int64(len(buf)))
		err := frameMemory.take(ctx, n)
		if err == nil {
			buf = slices.Grow(buf, int(n))[:len(buf)+int(n)]
			_, err = io.ReadFull(sc.r, buf[len(buf)-int(n):])
		}
		if err != nil {
			frameMemory.give(int64(len(buf)))
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return buf, nil
}

// bufferedFrame takes the next frame when the read that brought its first
// byte brought all of it, as it does for any request under the reader's
// buffer size, and its bytes are free in frameMemory. Such a frame cannot
// stall, so it needs no deadline: setting one and clearing it would change
// two runtime timers a request, each of which may wake the thread that
// waits in the network poller.
func (sc *serverStream) bufferedFrame() ([]byte, bool) {
	n := sc.r.Buffered()
	if n < frameLen {
		return nil, false
	}
	head, _ := sc.r.Peek(frameLen)
	size := int64(binary.BigEndian.Uint32(head))
	if size > MaxBody || int64(n) < frameLen+size || !frameMemory.tryTake(size) {
		return nil, false
	}
	buf := make([]byte, size)
	_, _ = sc.r.Discard(frameLen)
	_, _ = io.ReadFull(sc.r, buf) // buffered: cannot fail
	return buf, true
}
