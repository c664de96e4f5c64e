//go:build !windows

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenBrowserSaysXdgOpenFailed: ui --open where xdg-open finds no
// browser (a server, a container: it exits 3) says so and to open the URL
// by hand; it said nothing, and no page opened.
func TestOpenBrowserSaysXdgOpenFailed(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	var said bytes.Buffer
	select {
	case <-openBrowser(context.Background(), "http://127.0.0.1:1/login", &said):
	case <-time.After(10 * time.Second):
		t.Fatal("xdg-open that exits at once still runs after 10 s")
	}
	if !strings.Contains(said.String(), "xdg-open found no browser") || !strings.Contains(said.String(), "exit status 3") {
		t.Errorf("openBrowser with a failing xdg-open said %q, want that it found no browser and its status", said.String())
	}
}
