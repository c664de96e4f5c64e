package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

// TestInstallGitRefusesSharedAtOnce: `install git --shared` is refused as
// a usage error with nothing else said first: not the warning that no
// leasegate is in PATH, which --shared looks for and git never uses.
func TestInstallGitRefusesSharedAtOnce(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no leasegate in it
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	err = install(context.Background(), "install", []string{"git", "--shared"})
	os.Stderr = stderr
	w.Close()
	said, _ := io.ReadAll(r)
	if code, _ := classify(err); err == nil || code != exitUsage || !strings.Contains(err.Error(), "--shared is not supported") {
		t.Errorf("install git --shared = %v (exit %d), want the usage error", err, code)
	}
	if len(said) != 0 {
		t.Errorf("install git --shared said %q before refusing", said)
	}
}
