package api

import (
	"context"
	"net"

	"github.com/leasegate/leasegate"
)

// connContext is the http.Server's ConnContext: it asks the kernel who is
// on the other end of c and puts the answer in the context of every
// request c carries, including an upgraded stream's calls. A connection
// without kernel credentials (TCP) carries no peer. A unix connection
// whose credentials cannot be read carries an invisible peer (pid 0), which
// the coordinator trusts with nothing an operator or owner check needs.
func connContext(ctx context.Context, c net.Conn) context.Context {
	c = unwrapConn(c)
	if _, ok := c.(*net.UnixConn); !ok {
		return ctx
	}
	return leasegate.WithPeer(ctx, connPeer(c.(*net.UnixConn)))
}
