package etcd

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// reconnectMax bounds the wait between the client's attempts to connect
// to a member it lost. gRPC's default grows it to two minutes, so a
// coordinator came back that long after etcd did (after a 30 s outage,
// about 13 s late), its writes held all the while; one dial a second to
// a member that is down costs nothing.
const reconnectMax = time.Second

// newClient connects to cfg's cluster; ctx bounds the client's life.
func newClient(ctx context.Context, cfg Config) (*clientv3.Client, error) {
	b := backoff.DefaultConfig
	b.MaxDelay = reconnectMax
	return clientv3.New(clientv3.Config{
		Endpoints: cfg.Endpoints, DialTimeout: cfg.DialTimeout, Logger: zap.NewNop(), Context: ctx,
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{Backoff: b})},
	})
}
