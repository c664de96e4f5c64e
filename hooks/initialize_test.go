package hooks

import (
	"strings"
	"syscall"
	"testing"
)

// closedInput is a program's input after the program closed it: every
// write fails as a closed pipe does.
type closedInput struct{}

func (closedInput) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestInitializeJudgesWhatAClosedProgramPrinted: a program that printed
// and closed its input before initialize was sent is judged by what it
// printed, not by the failed send (doctor said "broken pipe" or "not
// JSON-RPC" for one program, depending on which came first).
func TestInitializeJudgesWhatAClosedProgramPrinted(t *testing.T) {
	tests := []struct {
		name, printed, want string
	}{
		{name: "printed no JSON", printed: "not json\n", want: "not JSON-RPC"},
		{name: "printed nothing", printed: "", want: "send initialize: broken pipe"},
		{name: "answered", printed: `{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"leasegate","version":"1"}}}` + "\n", want: "leasegate 1"},
	}
	for _, tt := range tests {
		server, err := initialize(closedInput{}, strings.NewReader(tt.printed))
		got := server
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: initialize = %q, %v; want %q", tt.name, server, err, tt.want)
		}
	}
}
