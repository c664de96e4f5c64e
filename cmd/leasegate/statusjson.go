package main

import (
	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/workspace"
)

// coordinatorJSON is the coordinator in `status --json`.
type coordinatorJSON struct {
	api.Health
	Socket string `json:"socket"`
}

// statusOutput is `status --json`: the coordinator's status, which
// coordinator answered, the workspace and its gating rule.
type statusOutput struct {
	leasegate.Status
	Coordinator coordinatorJSON `json:"coordinator"`
	Workspace   string          `json:"workspace"`
	Rule        string          `json:"rule"`
}

func statusJSON(s leasegate.Status, h api.Health, ws *workspace.Workspace, rule string) statusOutput {
	return statusOutput{Status: s, Coordinator: coordinatorJSON{Health: h, Socket: ws.SocketPath()}, Workspace: ws.Root, Rule: rule}
}
