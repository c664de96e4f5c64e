package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// helpText is a command's help: its synopsis, what its arguments are,
// and examples. Its flags come from its own flag set.
type helpText struct {
	synopsis string
	args     string
	examples []string
}

var helpTexts = map[string]helpText{
	"run": {"leasegate run --as NAME [flags] -- CMD [ARG...]",
		"CMD is the worker: every file mutation it or any process it starts makes in the workspace passes the lease gate. " +
			"Exits with the worker's status, 4 if an operator aborted it, 127 if CMD cannot be found, 126 if it cannot be executed.",
		[]string{"leasegate run --as alice -- claude", "leasegate run --as ci --retry-after 10s -- make test", "sudo leasegate run --gate fuse --as bob -- codex"}},
	"serve": {"leasegate serve [flags]\n  leasegate serve --stop [--force] [--json]",
		"No arguments. Any command that needs a coordinator starts one; run serve yourself to name its windows, a TCP listener or a webhook.",
		[]string{"leasegate serve --notify-url http://127.0.0.1:9000/notices", "leasegate serve --stop"}},
	"status": {"leasegate status [--all] [--json]",
		"No arguments. Shows the coordinator, owners, leases, contention, open blockers, ungated writes and the gating rule. " +
			"Starts nothing: with no coordinator running it says so (exit 0; exit 5 under --json).",
		[]string{"leasegate status", "leasegate --workspace ~/src/app status --json"}},
	"blockers": {"leasegate blockers [ID] [--all] [--markdown] [--json]",
		"ID: one blocker report, printed in full. Without it, the open blockers (--all: resolved ones too).",
		[]string{"leasegate blockers", "leasegate blockers 01JD3... --markdown"}},
	"resolve": {"leasegate resolve ID --retry|--deny|--abort [--note TEXT] [--by NAME]",
		"ID: a blocker report's id (`leasegate blockers`), or the id of a write still waiting for its retry (`leasegate status`, CONTENTION). " +
			"--by names who resolved it in the record (default: the user running it, as the console records it); the operator's process is recorded as well.",
		[]string{"leasegate resolve 01JD3... --retry", "leasegate resolve 01JD3... --deny --note 'bob owns the schema this week'"}},
	"acquire": {"leasegate acquire PATH|GLOB... --as NAME [--scope file|sparse|full] [--ttl D]",
		"PATH|GLOB: files or globs, relative to the current directory, inside the workspace. " +
			"Acquiring what NAME already holds answers with its lease unchanged.",
		[]string{"leasegate acquire 'docs/**' --as alice", "leasegate acquire src/api.go --as bob --ttl 4h"}},
	"renew": {"leasegate renew ID|PATH --as NAME [--ttl D] [--token N] [--reason TEXT]",
		"ID|PATH: the check-out lease, by id or by a path it covers.",
		[]string{"leasegate renew docs/guide.md --as alice --ttl 24h"}},
	"release": {"leasegate release ID|PATH --as NAME [--token N] [--reason TEXT]",
		"ID|PATH: the lease, by id or by a path it covers.",
		[]string{"leasegate release 'docs/**' --as alice"}},
	"checkin": {"leasegate checkin ID|PATH --as NAME [--token N] [--reason TEXT]",
		"ID|PATH: the check-out lease, by id or by a path it covers. Expired, evicted and wrong owner are distinct errors.",
		[]string{"leasegate checkin docs/guide.md --as alice"}},
	"evict": {"leasegate evict ID|PATH --reason TEXT [--as NAME]",
		"ID|PATH: anyone's lease, by id or by a path it covers. An operator's act: refused inside a worker.",
		[]string{"leasegate evict src/api.go --reason 'alice is on leave'"}},
	"history": {"leasegate history [PATH|ID] [--limit N] [--json]",
		"PATH|ID: the events of one path or lease (a blocker's id: its file's); without it, the whole audit trail. Starts nothing.",
		[]string{"leasegate history src/api.go", "leasegate history --limit 0 --json"}},
	"events": {"leasegate events [--follow] [--after SEQ] [--text|--json]",
		"No arguments. One line per event: readable on a terminal, JSON lines otherwise or with --json. " +
			"--follow keeps streaming and exits 5 when the coordinator goes away. Starts nothing.",
		[]string{"leasegate events --follow", "leasegate events --after 120 --json | jq .type"}},
	"stop": {"leasegate stop --as NAME",
		"No arguments. Starts NAME's stop-idle window: its leases are released after it unless it writes again.",
		[]string{"leasegate stop --as alice"}},
	"hook": {"leasegate hook claude-code|codex|gemini|cursor|git-pre-commit|git-post-commit [flags]",
		"Called by the agent or git with the event on stdin; `leasegate install` wires it.",
		nil},
	"install": {"leasegate install claude-code|codex|gemini|cursor|git [--shared] [--user] [--no-mcp] [--trust (codex)]",
		"The agent (or git) whose hooks to wire; for an agent, also its MCP configuration (.mcp.json, ...) unless --no-mcp. By default the entry names this binary's absolute path in the agent's " +
			"local, git-ignored settings file where it has one; --shared writes a PATH-resolved `leasegate` into the shared file.",
		[]string{"leasegate install claude-code", "leasegate install claude-code --shared", "leasegate install codex --trust"}},
	"uninstall": {"leasegate uninstall claude-code|codex|gemini|cursor|git [--shared] [--user] [--no-mcp]",
		"The agent (or git) whose hooks to remove: exactly what install added, and directories it created that are left empty.",
		[]string{"leasegate uninstall claude-code"}},
	"mcp": {"leasegate mcp [--as NAME] [--no-start]",
		"No arguments. Speaks MCP on stdin/stdout for the agent that started it; `leasegate install` registers it with the agent.",
		[]string{`claude mcp add leasegate -- leasegate mcp`}},
	"doctor": {"leasegate doctor [--codex PROGRAM] [--json]",
		"No arguments. Checks each agent's hooks: installed, trusted, answering.",
		[]string{"leasegate doctor"}},
	"ledger": {"leasegate ledger check|recover [--json]",
		"check: read a stopped coordinator's ledger and report. recover: rebuild it from what is readable.",
		[]string{"leasegate ledger check"}},
	"ui": {"leasegate ui [--addr 127.0.0.1:0] [--metrics-addr ADDR] [--tls-cert FILE --tls-key FILE] [--open] [--json]",
		"No arguments. Serves the console on loopback and prints a one-time login URL; the page then lives in a session cookie. " +
			"On another interface it serves HTTPS (its own certificate, fingerprint printed, or --tls-cert) and the login also asks for the admin token. " +
			"--json: one JSON line with the URLs. Runs until interrupted.",
		[]string{"leasegate ui", "leasegate ui --addr 127.0.0.1:7071 --metrics-addr 127.0.0.1:9464 --open", "leasegate ui --addr 192.0.2.2:8443"}},
	"demo": {"leasegate demo [--keep]",
		"No arguments. Plays the whole story on a temporary git repository.",
		[]string{"go run ./cmd/leasegate demo"}},
	"version": {"leasegate version [--json]\n  leasegate --version | -V",
		"No arguments. The module version and the VCS revision the binary was built from.",
		[]string{"leasegate version --json"}},
	"completion": {"leasegate completion bash|zsh|fish",
		"The shell to print a completion script for.",
		[]string{"source <(leasegate completion bash)", "leasegate completion fish > ~/.config/fish/completions/leasegate.fish"}},
}

// printHelp writes a command's help: synopsis, arguments, its own flags,
// examples.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	name, _, _ := strings.Cut(fs.Name(), " ")
	h, ok := helpTexts[name]
	if !ok {
		h.synopsis = "leasegate " + fs.Name() + " [flags]"
	}
	summary := ""
	for _, c := range commands() {
		if c.name == name {
			summary = c.summary
		}
	}
	fmt.Fprintf(w, "leasegate %s: %s\n\nusage:\n  %s\n", name, summary, h.synopsis)
	if h.args != "" {
		fmt.Fprintf(w, "\n%s\n", h.args)
	}
	if hasFlags(fs) {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if len(h.examples) > 0 {
		fmt.Fprintln(w, "\nexamples:")
		for _, e := range h.examples {
			fmt.Fprintln(w, "  "+e)
		}
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// help is `leasegate help [COMMAND]`.
func help(args []string) int {
	if len(args) == 0 {
		usage()
		return exitOK
	}
	c, ok := lookup(args[0])
	if !ok {
		return run(args) // says it is unknown, with a suggestion
	}
	return exitCode(c.run(context.Background(), append(args[1:len(args):len(args)], "--help")))
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: leasegate [--workspace DIR] [--json] [--log-level L] [--no-start] COMMAND [flags] [args]\n       leasegate --version\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'leasegate help COMMAND' (or 'leasegate COMMAND -h') for a command's usage, flags and examples.\n"+
		"Exit codes: 0 ok, 1 error, 2 usage or not found, 3 denied, 4 blocked, 5 coordinator unavailable; run: 126 not executable, 127 command not found.")
}
