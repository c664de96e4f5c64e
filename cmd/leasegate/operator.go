package main

import (
	"fmt"
	"os"
	"os/user"
)

// operatorName is who an operator's acts (resolve, evict, a resolution
// from the console) are recorded as when no name is given: the user
// running the command, as the system names it, else $USER, else the uid.
// The coordinator records the operator's process as well.
func operatorName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if n := os.Getenv("USER"); n != "" {
		return n
	}
	return fmt.Sprintf("uid %d", os.Getuid())
}
