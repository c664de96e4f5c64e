// Package envname is the one table of the LEASEGATE_* environment
// variables the program reads or sets. The command's flags, the hooks, the
// sidecar's worker environment, the seccomp re-exec and the tests name a
// variable through these constants, never by a string of their own. It
// holds names only: reading and validating a value belongs to the package
// that owns the setting.
package envname

// Prefix begins every name of the table: a variable whose name begins
// with it is leasegate's (the Gemini CLI hook takes back those the agent
// withheld).
const Prefix = "LEASEGATE_"

const (
	// As is the owner name to act as: the default of --as, and what
	// `leasegate run` sets in its worker's environment.
	As = "LEASEGATE_AS"
	// Workspace is the workspace root `leasegate run` sets in its worker's
	// environment.
	Workspace = "LEASEGATE_WORKSPACE"
	// Sidecar is the pid of the sidecar `leasegate run` sets in its
	// worker's environment; the hooks find their sidecar by it.
	Sidecar = "LEASEGATE_SIDECAR"
	// RetryAfter and IdleAfter name an owner's contract windows: the
	// defaults of --retry-after and --idle-after.
	RetryAfter = "LEASEGATE_RETRY_AFTER"
	IdleAfter  = "LEASEGATE_IDLE_AFTER"
	// LogLevel is the default of --log-level.
	LogLevel = "LEASEGATE_LOG_LEVEL"
	// NoStart set to 1 acts as --no-start.
	NoStart = "LEASEGATE_NO_START"
	// Notices is the default of run's --notices.
	Notices = "LEASEGATE_NOTICES"
	// Cluster names the ledger in place of leasegate.json's "cluster":
	// the same JSON object, or "none" for the file in the state directory
	// (workspace.LoadEffectiveConfig reads it).
	Cluster = "LEASEGATE_CLUSTER"
	// NotifyURL is the default of serve's --notify-url.
	NotifyURL = "LEASEGATE_NOTIFY_URL"
	// HookTimeout and HookUnreachable are the defaults of the hook's
	// --timeout and --unreachable.
	HookTimeout     = "LEASEGATE_HOOK_TIMEOUT"
	HookUnreachable = "LEASEGATE_HOOK_UNREACHABLE"
	// HookParent is the pid of the /bin/sh that the fail-closed hook line
	// runs the hook under (hooks/failclosed.go): the hook ends its wait
	// when that process ends. The hook removes it from its environment.
	HookParent = "LEASEGATE_HOOK_PARENT"
	// AgentProgram adds program names (comma-separated) the hooks take
	// for an agent's.
	AgentProgram = "LEASEGATE_AGENT_PROGRAM"
	// Codex is the codex program `leasegate doctor` asks what it trusts.
	Codex = "LEASEGATE_CODEX"
	// SpawnHelper and SpawnReaper mark the re-executed helper and reaper
	// of an interception gate (intercept/spawn); their value names the
	// gate. Each is removed before the worker starts.
	SpawnHelper = "LEASEGATE_SPAWN_HELPER"
	SpawnReaper = "LEASEGATE_SPAWN_REAPER"
	// FuseRoot tells the FUSE gate's helper which directory to mount its
	// view over; it is removed before the worker starts.
	FuseRoot = "LEASEGATE_FUSE_ROOT"
	// FuseReadOnly lists (a JSON array) the directories the FUSE gate's
	// helper shows read-only and as they are beneath its view; it is
	// removed before the worker starts.
	FuseReadOnly = "LEASEGATE_FUSE_READONLY"
	// TestEtcd names the etcd binary the tests use; set, a missing etcd
	// fails the tests instead of skipping them.
	TestEtcd = "LEASEGATE_TEST_ETCD"
	// TestRedis names the redis-server binary the coordinator's
	// benchmark against Redis uses; set, a missing Redis fails its test
	// instead of skipping it.
	TestRedis = "LEASEGATE_TEST_REDIS"
)
