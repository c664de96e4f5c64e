package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version overrides the build info's module version when set at build
// time with -ldflags "-X main.version=...".
var version = ""

// buildInfo is what `leasegate version` reports: the module version and
// the VCS revision the binary was built from, as Go recorded them.
type buildInfo struct {
	Version  string `json:"version"`            // module version, "(devel)" for a build from a checkout
	Revision string `json:"revision,omitempty"` // VCS commit
	Time     string `json:"time,omitempty"`     // commit time, RFC 3339
	Modified bool   `json:"modified"`           // the checkout had uncommitted changes
	Go       string `json:"go"`
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: "(unknown)", Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.Version = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		b.Version = version
	}
	return b
}

// versionString is the version in one word: the module version, with the
// revision when the module version does not name a release.
func versionString() string {
	b := readBuildInfo()
	if b.Revision == "" || (b.Version != "(devel)" && b.Version != "(unknown)" && b.Version != "") {
		return b.Version
	}
	rev := b.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if b.Modified {
		rev += "-dirty"
	}
	return b.Version + " " + rev
}

func (b buildInfo) String() string {
	s := "leasegate " + b.Version
	if b.Revision != "" {
		s += " revision " + b.Revision
		if b.Modified {
			s += " (modified)"
		}
		if b.Time != "" {
			s += " of " + b.Time
		}
	}
	return s + " built with " + b.Go
}

func cmdVersion(_ context.Context, args []string) error {
	var jsonOut bool
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.BoolVar(&jsonOut, "json", false, "print JSON instead of text")
	if err := parseNone("version", fs, args); err != nil {
		return err
	}
	b := readBuildInfo()
	if jsonOut {
		return printJSON(b)
	}
	fmt.Println(b)
	return nil
}
