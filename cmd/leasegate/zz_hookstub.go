package main

import "context"

func cmdHook(context.Context, []string) error      { return usagef("hook: not built yet") }
func cmdInstall(context.Context, []string) error   { return usagef("install: not built yet") }
func cmdUninstall(context.Context, []string) error { return usagef("uninstall: not built yet") }
