package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// flagCollector, when set, receives the flag set of the command being
// run instead of the command running: how completion learns each
// command's flags from the command itself.
var flagCollector func(fs *flag.FlagSet)

var errCollected = errors.New("flags collected")

// commandFlags are the flag names of each command, asked of the command.
func commandFlags() map[string][]string {
	out := map[string][]string{}
	for name, fs := range commandFlagSets() {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
		out[name] = names
	}
	return out
}

// commandFlagSets are the flag sets of each command but completion,
// asked of the command: what its help lists and what it parses.
func commandFlagSets() map[string]*flag.FlagSet {
	out := map[string]*flag.FlagSet{}
	defer func() { flagCollector = nil }()
	for _, c := range commands() {
		if c.name == "completion" {
			continue
		}
		flagCollector = func(fs *flag.FlagSet) { out[c.name] = fs }
		args := []string{}
		if c.subcommand {
			args = []string{completionArgs[c.name][0]}
		}
		_ = c.run(context.Background(), args)
	}
	return out
}

// completionArgs are the words that may follow a command.
var completionArgs = map[string][]string{
	"ledger":     {"check", "recover"},
	"hook":       {"claude-code", "codex", "gemini", "cursor", "git-pre-commit", "git-post-commit"},
	"install":    {"claude-code", "codex", "gemini", "cursor", "git"},
	"uninstall":  {"claude-code", "codex", "gemini", "cursor", "git"},
	"completion": {"bash", "zsh", "fish"},
}

func cmdCompletion(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("completion", flag.ContinueOnError)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("completion: want one argument, bash, zsh or fish; got %d (it takes no flags: %q)", fs.NArg(), fs.Args())
	}
	switch fs.Arg(0) {
	case "bash":
		writeBash(os.Stdout)
	case "zsh":
		fmt.Fprintln(os.Stdout, "#compdef leasegate\nautoload -U bashcompinit && bashcompinit")
		writeBash(os.Stdout)
	case "fish":
		writeFish(os.Stdout)
	default:
		return usagef("completion: %q is not a shell leasegate completes; want bash, zsh or fish", fs.Arg(0))
	}
	return nil
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func writeBash(w io.Writer) {
	flags := commandFlags()
	fmt.Fprintf(w, `_leasegate() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      --workspace|--log-level) ((i++)) ;;
      -*) ;;
      *) cmd=${COMP_WORDS[i]}; break ;;
    esac
  done
  local words
  case $cmd in
    "") words="%s --workspace --log-level --json --no-start --version --help" ;;
`, strings.Join(commandNames(), " "))
	for _, name := range sortedKeys(flags) {
		words := append(slices.Clone(completionArgs[name]), flags[name]...)
		fmt.Fprintf(w, "    %s) words=%q ;;\n", name, strings.Join(words, " "))
	}
	fmt.Fprintf(w, "    help) words=%q ;;\n", strings.Join(commandNames(), " "))
	fmt.Fprint(w, `  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  case ${COMP_WORDS[COMP_CWORD-1]} in
    --workspace) COMPREPLY=($(compgen -d -- "$cur")) ;;
  esac
}
complete -o default -F _leasegate leasegate
`)
}

func writeFish(w io.Writer) {
	flags := commandFlags()
	names := strings.Join(commandNames(), " ")
	fmt.Fprintln(w, "complete -c leasegate -f")
	fmt.Fprintf(w, "complete -c leasegate -n 'not __fish_seen_subcommand_from %s' -a '%s'\n", names, names)
	for _, name := range sortedKeys(flags) {
		cond := fmt.Sprintf("__fish_seen_subcommand_from %s", name)
		if args := completionArgs[name]; len(args) > 0 {
			fmt.Fprintf(w, "complete -c leasegate -n '%s' -a '%s'\n", cond, strings.Join(args, " "))
		}
		for _, f := range flags[name] {
			fmt.Fprintf(w, "complete -c leasegate -n '%s' -l %s\n", cond, strings.TrimPrefix(f, "--"))
		}
	}
}
