package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

// cmdDoctor reports, for each agent, whether leasegate's hooks are
// installed (in the workspace's settings and the user's), whether the
// agent will run them, and whether the installed command answers; and
// whether leasegate's MCP server is registered for it and answers; and
// whether a coordinator running for the workspace has a healthy ledger.
// It exits 1 when some installed hooks would not gate, a registered MCP
// server does not answer, no hooks are installed, or the running
// coordinator warns of its ledger (a full disk refuses every write
// whatever the hooks do).
func cmdDoctor(ctx context.Context, args []string) error {
	var f hookFlags
	var codex string
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.StringVar(&f.dir, "workspace", "", "workspace directory (default: the git checkout around the current directory)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON instead of text")
	fs.StringVar(&codex, "codex", envOr(envname.Codex, "codex"), "the codex program to ask what it trusts (env "+envname.Codex+")")
	if err := parseNone("doctor", fs, args); err != nil {
		return err
	}
	ws, err := f.workspace()
	if err != nil {
		return err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return fmt.Errorf("doctor: each agent's user settings, and Codex's and Gemini CLI's trust, are in your home directory, and %w: set HOME", err)
	}
	// Another user's state directory: every hook this user runs here
	// fails closed, refusing every write and commit.
	foreign := ws.CheckStateOwner()
	// Asked first, so that what it says is the coordinator that was
	// running before the hook commands below were tried.
	var coord *coordinatorCheck
	if foreign == nil {
		k := f.checkCoordinator(ctx, ws)
		coord = &k
	}
	var ds []hooks.Diagnosis
	for _, a := range hooks.Agents() {
		files := []string{hooks.SettingsPath(a, ws.Root), hooks.UserSettingsPath(a, home)}
		if local, ok := hooks.LocalSettingsPath(a, ws.Root); ok {
			files = append([]string{local}, files...)
		}
		for _, file := range files {
			cfg := hooks.DoctorConfig{Root: ws.Root, File: file, Codex: codex, Home: home}
			ds = append(ds, hooks.Diagnose(ctx, a, cfg))
		}
	}
	ms := diagnoseMCP(ctx, ws.Root, home)
	git, gitErr := doctorGit(ctx, ws)
	var gitMissing []string
	if gitErr == nil && len(git) > 0 {
		gitMissing, gitErr = hooks.GitMissingInSubmodules(ctx, ws)
	}
	if f.jsonOut {
		return printDoctorJSON(ds, ms, git, gitMissing, gitErr, foreign, coord)
	}
	printDoctor(ds, git, gitErr)
	for _, dir := range gitMissing {
		fmt.Printf("git: NOT in the submodule %s, whose commits run its own hooks (`leasegate install git` again)\n", dir)
	}
	printDoctorMCP(ms)
	if foreign != nil {
		fmt.Printf("coordinator: NOT reachable by this user, so its hooks here refuse every write and commit: %v\n", foreign)
		return &exitStatus{code: exitError}
	}
	printCoordinatorCheck(*coord)
	return doctorVerdict(ds, ms, coord)
}

// doctorGit lists leasegate's git hooks installed in the workspace, where
// there is a checkout to have them.
func doctorGit(ctx context.Context, ws *workspace.Workspace) ([]string, error) {
	if ws.GitDir == "" {
		return nil, errors.New(notCheckout(ws.Root))
	}
	return hooks.GitInstalled(ctx, ws.Root)
}

func printDoctor(ds []hooks.Diagnosis, git []string, gitErr error) {
	for _, d := range ds {
		switch {
		case d.Installed == 0 && len(d.Problems) == 0:
			continue
		case d.OK():
			fmt.Printf("%s: ok: %d hooks in %s", d.Agent, d.Installed, d.File)
			for _, n := range d.Notes {
				fmt.Printf("; %s", n)
			}
			fmt.Println()
		default:
			fmt.Printf("%s: NOT GATING: %d of %d hooks in %s\n", d.Agent, d.Installed, d.Want, d.File)
			for _, p := range d.Problems {
				fmt.Printf("  - %s\n", p)
			}
		}
	}
	for _, a := range hooks.Agents() {
		if !installedAnywhere(ds, a) {
			fmt.Printf("%s: not installed (`leasegate install %s`)\n", a, a)
		}
	}
	switch {
	case gitErr != nil:
		fmt.Printf("git: cannot tell: %v\n", gitErr)
	case len(git) == 0:
		fmt.Println("git: not installed (`leasegate install git`)")
	default:
		fmt.Printf("git: installed: %v\n", git)
	}
}

func installedAnywhere(ds []hooks.Diagnosis, a hooks.Agent) bool {
	for _, d := range ds {
		if d.Agent == a && (d.Installed > 0 || len(d.Problems) > 0) {
			return true
		}
	}
	return false
}

// doctorAgent is an agent's hooks in `doctor --json`.
type doctorAgent struct {
	hooks.Diagnosis
	OK bool `json:"ok"`
}

// doctorReport is what `doctor --json` prints.
type doctorReport struct {
	Agents   []doctorAgent        `json:"agents"`
	MCP      []hooks.MCPDiagnosis `json:"mcp_servers"`
	Git      []string             `json:"git_hooks"`
	GitNotIn []string             `json:"git_hooks_missing_in,omitempty"`
	GitError string               `json:"git_error,omitempty"`
	Foreign  string               `json:"coordinator_error,omitempty"`
	// Coordinator is absent when Foreign says why it cannot be asked.
	Coordinator *coordinatorCheck `json:"coordinator,omitempty"`
}

func printDoctorJSON(ds []hooks.Diagnosis, ms []hooks.MCPDiagnosis, git, gitMissing []string, gitErr, foreign error, coord *coordinatorCheck) error {
	out := doctorReport{Agents: []doctorAgent{}, Git: append([]string{}, git...), GitNotIn: gitMissing, MCP: registeredMCP(ms), Coordinator: coord}
	if gitErr != nil {
		out.GitError = gitErr.Error()
	}
	if foreign != nil {
		out.Foreign = foreign.Error()
	}
	for _, d := range ds {
		if d.Installed > 0 || len(d.Problems) > 0 {
			out.Agents = append(out.Agents, doctorAgent{Diagnosis: d, OK: d.OK()})
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	if foreign != nil {
		return &exitStatus{code: exitError}
	}
	return doctorVerdict(ds, ms, coord)
}

// doctorVerdict fails when installed hooks would not gate, a registered
// MCP server does not answer, no hooks are installed, or the running
// coordinator warns of its ledger or cannot be asked.
func doctorVerdict(ds []hooks.Diagnosis, ms []hooks.MCPDiagnosis, coord *coordinatorCheck) error {
	if mcpFailing(ms) {
		return &exitStatus{code: exitError}
	}
	any := false
	for _, d := range ds {
		if d.Installed > 0 || len(d.Problems) > 0 {
			any = true
			if !d.OK() {
				return &exitStatus{code: exitError}
			}
		}
	}
	if !any {
		// An error, said as every command's is: one JSON object on
		// stderr under --json, where a line of text spoiled it.
		return errors.New("doctor: no agent hooks installed")
	}
	if coord != nil && !coord.OK {
		return &exitStatus{code: exitError}
	}
	return nil
}
