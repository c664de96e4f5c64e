package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// ClusterID asks the etcd cluster at endpoints for its id, which every
// member reports alike: two lists of endpoints with the same id reach one
// cluster, whatever addresses they name it by. The request is
// serializable, so any member answers it, a cluster without a leader too;
// it fails after DefaultDialTimeout, saying what a TCP dial meets at each
// endpoint, and at once when every endpoint refuses the dial.
func ClusterID(ctx context.Context, endpoints []string) (uint64, error) {
	if why, ok := noneReachable(ctx, endpoints); ok {
		return 0, fmt.Errorf("ask etcd at %v for its cluster id: no endpoint reachable (%s)", endpoints, why)
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultDialTimeout)
	defer cancel()
	cli, err := newClient(ctx, Config{Endpoints: endpoints, DialTimeout: DefaultDialTimeout})
	if err != nil {
		return 0, fmt.Errorf("ask etcd at %v for its cluster id: %w", endpoints, err)
	}
	defer cli.Close()
	resp, err := cli.MemberList(ctx, clientv3.WithSerializable())
	if err != nil {
		return 0, fmt.Errorf("ask etcd at %v for its cluster id (%s): %w", endpoints, probe(endpoints), err)
	}
	return resp.Header.ClusterId, nil
}
