package mcp_test

import (
	"fmt"
	"io"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate/mcp"
)

// BenchmarkCheck is one leases_check of 10 paths, two of them held by
// another owner, from the SDK's client over two pipes to a coordinator on
// a unix socket: the server's own cost, without a process boundary. The
// server reads its messages through the SDK's IOTransport (transport=sdk,
// what `leasegate mcp` used before) or through mcp.LineTransport
// (transport=lines, what it uses now); the client is the same in both.
func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct {
		name   string
		server func(io.ReadCloser, io.WriteCloser) sdk.Transport
	}{
		{"transport=sdk", func(r io.ReadCloser, w io.WriteCloser) sdk.Transport { return &sdk.IOTransport{Reader: r, Writer: w} }},
		{"transport=lines", func(r io.ReadCloser, w io.WriteCloser) sdk.Transport { return &mcp.LineTransport{Reader: r, Writer: w} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := newWorld(b)
			w.register(b, "bob")
			w.acquire(b, "bob", "p3.go", "p7.go")
			st, ct := pipeTransports(bc.server)
			cs := w.connectOver(b, "alice", nil, nil, st, ct)
			var paths []string
			for i := range 10 {
				paths = append(paths, fmt.Sprintf("p%d.go", i))
			}
			args := map[string]any{"paths": paths}
			b.ResetTimer()
			for b.Loop() {
				mustCall(b, cs, "leases_check", args, nil)
			}
		})
	}
}

// pipeTransports joins a server transport that server builds and the
// SDK's IOTransport for the client by two pipes.
func pipeTransports(server func(io.ReadCloser, io.WriteCloser) sdk.Transport) (st, ct sdk.Transport) {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	return server(toServer, fromServer), &sdk.IOTransport{Reader: toClient, Writer: fromClient}
}
