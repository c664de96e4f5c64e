package main

import (
	"flag"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// readme is the project's README, the user's reference for every flag.
func readme(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// commandRows are the README's Commands table rows whose first cell
// names the command (`serve ...` and `serve --stop ...` for serve,
// `install` / `uninstall ...` for both).
func commandRows(text, name string) string {
	word := regexp.MustCompile("(^|[\\s`/])" + regexp.QuoteMeta(name) + "([\\s`]|$)")
	var rows []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.SplitN(line, " | ", 2)
		if word.MatchString(strings.TrimPrefix(cells[0], "| ")) {
			rows = append(rows, line)
		}
	}
	return strings.Join(rows, "\n")
}

// TestREADMENamesEveryFlag: every flag a command takes, but the ones
// every command takes (listed once, below the table), is named in the
// README's row of that command, so no flag is accepted unsaid (serve's
// --no-watch was in its help and nowhere in the table).
func TestREADMENamesEveryFlag(t *testing.T) {
	text := readme(t)
	for name, flags := range commandFlags() {
		rows := commandRows(text, name)
		if rows == "" {
			t.Errorf("README has no Commands row for %s", name)
			continue
		}
		for _, f := range flags {
			if _, global := globalFlags[strings.TrimPrefix(f, "--")]; global {
				continue
			}
			if !regexp.MustCompile(regexp.QuoteMeta(f) + `([^a-z-]|$)`).MatchString(rows) {
				t.Errorf("README's row of %s does not name its flag %s", name, f)
			}
		}
	}
}

// TestHelpSaysWhichFlagsAreRefused: a flag a command's flag set has only
// to refuse it says so in its help, instead of what it does elsewhere
// (`serve --help` offered --no-start, `mcp --help` "print JSON instead
// of text", both refused with exit 2).
func TestHelpSaysWhichFlagsAreRefused(t *testing.T) {
	sets := commandFlagSets()
	for _, tt := range []struct{ command, flag string }{
		{"serve", "no-start"},
		{"mcp", "json"},
		{"hook", "json"},
	} {
		f := sets[tt.command].Lookup(tt.flag)
		if f == nil {
			t.Errorf("%s has no --%s", tt.command, tt.flag)
			continue
		}
		if !strings.HasPrefix(f.Usage, "refused (exit 2)") {
			t.Errorf("%s --help says of --%s %q, want it refused (exit 2)", tt.command, tt.flag, f.Usage)
		}
	}
}

// TestHelpSaysNoStartChangesNothing: the read-only commands and ledger
// start no coordinator; their help said --no-start would keep them from
// starting one.
func TestHelpSaysNoStartChangesNothing(t *testing.T) {
	sets := commandFlagSets()
	for _, name := range []string{"status", "blockers", "history", "events", "ledger"} {
		if u := sets[name].Lookup("no-start").Usage; !strings.HasPrefix(u, "changes nothing") {
			t.Errorf("%s --help says of --no-start %q, want that it changes nothing", name, u)
		}
	}
}

// TestHelpShowsNoArgumentForASwitch: a boolean flag's help shows no
// argument after its name. flag.PrintDefaults takes a back-quoted word
// in a usage for the argument's name, so `install --help` showed
// "-shared leasegate", as if --shared took one.
func TestHelpShowsNoArgumentForASwitch(t *testing.T) {
	for name, fs := range commandFlagSets() {
		fs.VisitAll(func(f *flag.Flag) {
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			if arg, _ := flag.UnquoteUsage(f); ok && b.IsBoolFlag() && arg != "" {
				t.Errorf("%s --help shows -%s %s; the switch takes no argument", name, f.Name, arg)
			}
		})
	}
}

// TestREADMEListsEveryJSONField: where the README spells a JSON answer
// as its keys (`{"ok","version",...}`), they are the keys the program
// writes, no more and no fewer: GET /v1/health had gained ledger,
// max_conns and files_limit, and status --json's coordinator ok and
// max_conns, none of them in the list.
func TestREADMEListsEveryJSONField(t *testing.T) {
	text := readme(t)
	for _, tt := range []struct {
		marker string
		value  any
	}{
		{"| `GET /v1/health` | | `", api.Health{}},
		{"| `GET /v1/status` | | `", leasegate.Status{}},
		{"| `GET /v1/stats` | | the coordinator's own figures: `", leasegate.Stats{}},
		{"| `GET /v1/whoami` | | who the coordinator takes the caller to be: `", leasegate.CallerView{}},
		{"found through the lease index: `", leasegate.CheckView{}},
		{"heartbeat: `", leasegate.Beat{}},
		{"to the URL as JSON:\n\n```json\n", leasegate.Notice{}},
		{"\"Holder now\" (`holder_now`: `", blocker.HolderNow{}},
		{"(`--json`: `coordinator`: `", coordinatorCheck{}},
		{"(on etcd `", sharedCheckReport{}},
		{"`recover` `", recoverReport{}},
		{`plus ` + "`" + `"coordinator":`, coordinatorJSON{}},
		{"`--json`: `check` `", checkReport{}},
		{"is said, not failed. `--json`: `", doctorReport{}},
		{"(`--json`: one line, `", uiAnnouncement{}},
		{"says so and exits 0 (`--json`: `", serveStopped{}},
		{"`version --json`\n`", buildInfo{}},
		{"`events --json` one event per line, `", gate.Event{}},
		{"`agents` those with hooks installed or a problem, each `", doctorAgent{}},
	} {
		at := strings.Index(text, tt.marker)
		if at < 0 {
			t.Errorf("README has no %q", tt.marker)
			continue
		}
		documented := topKeys(text[at+len(tt.marker):])
		written := jsonKeys(reflect.TypeOf(tt.value))
		for _, k := range written {
			if !slices.Contains(documented, k) {
				t.Errorf("%T writes %q; README's list after %q lacks it", tt.value, k, tt.marker)
			}
		}
		for _, k := range documented {
			if !slices.Contains(written, k) {
				t.Errorf("README lists %q after %q; %T writes no such key", k, tt.marker, tt.value)
			}
		}
	}
}

// topKeys are the keys of the first JSON-like object in s, at its top
// level only: `{"a":{"b"},"c"}` gives a and c.
func topKeys(s string) []string {
	var keys []string
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return keys
			}
		case '"':
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return keys
			}
			if depth == 1 && (s[i-1] == '{' || s[i-1] == ',') {
				keys = append(keys, s[i+1:i+1+end])
			}
			i += end + 1
		}
	}
	return keys
}

// jsonKeys are the object keys encoding/json writes for a struct of type
// t, an embedded struct's own included.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported() && !f.Anonymous:
		case f.Anonymous && name == "":
			keys = append(keys, jsonKeys(f.Type)...)
		case name == "":
			keys = append(keys, f.Name)
		default:
			keys = append(keys, name)
		}
	}
	return keys
}
