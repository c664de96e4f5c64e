#!/usr/bin/env python3
# analyze.py OUT WS: the trial's figures from its logs, the live event stream and the ledger
import json, sys, glob, os, subprocess, datetime, collections
out, ws = sys.argv[1], sys.argv[2]
LG = os.environ["LG"]
def ts(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")[:26] + "+00:00" if "." in s else s.replace("Z", "+00:00")).timestamp()
def at(e):
    s = e["at"].rstrip("Z"); base, _, frac = s.partition(".")
    return datetime.datetime.fromisoformat(base).replace(tzinfo=datetime.timezone.utc).timestamp() + (float("0." + frac) if frac else 0)
live = [json.loads(l) for l in open(out + "/events.jsonl")]
dump = [json.loads(l) for l in subprocess.run([LG, "--workspace", ws, "--no-start", "events", "--json"], capture_output=True, text=True).stdout.splitlines() if l]
print(f"events: live stream {len(live)}, ledger {len(dump)}")
ld = {e["seq"]: e for e in dump}
lost = [e["seq"] for e in live if e["seq"] not in ld or ld[e["seq"]]["type"] != e["type"] or ld[e["seq"]].get("lease_id") != e.get("lease_id")]
print(f"acknowledged events seen live but not identical in the ledger after the run: {len(lost)} {lost[:5]}")
seqs = [e["seq"] for e in live]; print(f"live stream gaps: {[(a,b) for a,b in zip(seqs,seqs[1:]) if b!=a+1][:5]}, duplicates: {len(seqs)-len(set(seqs))}")
print("event types:", dict(collections.Counter(e["type"] for e in dump).most_common()))
# one holder per path
def ov(a, b):
    def pre(p): return p[:-3] if p.endswith("/**") else None
    if a == b: return True
    pa, pb = pre(a), pre(b)
    if pa is not None and (b == pa or b.startswith(pa + "/")): return True
    if pb is not None and (a == pb or a.startswith(pb + "/")): return True
    return False
active = {}; owner_of = {}; two = []; badblk = []
for e in dump:
    if e["type"] == "lease.granted" and e.get("lease"):
        l = e["lease"]; o = l["owner"]["name"]; ps = l["scope"].get("paths") or []
        if l["scope"].get("type") == "full": ps = ["**"]
        for lid, (o2, ps2) in active.items():
            if o2 != o and any(ov(p, q) or p == "**" or q == "**" for p in ps for q in ps2): two.append((e["seq"], o, ps, o2, ps2))
        active[l["id"]] = (o, ps); owner_of[l["id"]] = o
    elif e["type"] in ("lease.released", "lease.completed", "lease.expired", "lease.evicted", "lease.reclaimed"):
        active.pop(e.get("lease_id"), None)
    elif e["type"] == "blocker.opened":
        r = e["data"]; h = r["holder"]
        if h["lease_id"] not in active or active[h["lease_id"]][0] != h["owner"]["name"]: badblk.append((r["id"], h["lease_id"], h["owner"]["name"]))
print(f"grants overlapping another owner's active lease: {len(two)} {two[:3]}")
print(f"blockers naming a lease its holder did not hold when opened: {len(badblk)} {badblk[:3]}")
# chaos
chaos = [l.split() for l in open(out + "/chaos.log") if len(l.split()) >= 3 and l.split()[1].startswith(("kill9", "stop"))]
for c in chaos:
    t, what, name = float(c[0]), c[1], c[2]
    if what.startswith("kill9-") and what != "kill9-coordinator":
        g = [at(e) - t for e in dump if e["type"] == "owner.gone" and e.get("actor") == name and at(e) > t - 2]
        r = [at(e) - t for e in dump if e["type"] == "lease.reclaimed" and owner_of.get(e.get("lease_id")) == name and at(e) > t - 2]
        print(f"{what} {name}: owner.gone {min(g)*1000 if g else None:.0f} ms after the kill; leases reclaimed: {len(r)}" if g else f"{what} {name}: no owner.gone")
    if what == "stop":
        rel = [at(e) - t for e in dump if e["type"] == "lease.released" and owner_of.get(e.get("lease_id")) == name and at(e) > t]
        held = [k for k, v in active.items() if v[0] == name]
        print(f"stop {name}: {len(rel)} leases released, first {min(rel) if rel else None} s after SIGSTOP")
    if what == "kill9-coordinator":
        after = [at(e) - t for e in dump if at(e) > t]
        print(f"coordinator killed: next ledger event {min(after):.2f} s later" if after else "no event after the coordinator kill")
# ops
ops = collections.defaultdict(list)
for f in glob.glob(out + "/*.ops"):
    w = os.path.basename(f)[:-4]
    for l in open(f):
        p = l.split()
        if len(p) >= 4: ops[p[3]].append((w, float(p[0]), float(p[1]), int(p[2]), " ".join(p[4:])))
cont = collections.defaultdict(list)
for e in dump:
    if e["type"] in ("contention.heartbeat",): cont[e.get("actor")].append(at(e))
print("ops: name n fail p50 max >5.5s >5.5s-without-a-contention")
for k, v in sorted(ops.items()):
    d = sorted(x[2] - x[1] for x in v); slow = [x for x in v if x[2] - x[1] > 5.5]
    nothing = [x for x in slow if not any(x[1] - 0.5 <= c <= x[2] for c in cont[x[0]])]
    print(f"  {k:8} {len(v):5} {sum(1 for x in v if x[3]):5} {d[len(d)//2]:6.2f} {d[-1]:7.2f} {len(slow):4} {len(nothing):4} {[ (x[0], round(x[2]-x[1],1), x[4]) for x in nothing[:3]]}")
# resources
rs = [json.loads(l) for l in open(out + "/res.jsonl")]
rs = [r for r in rs if r.get("coord")]
def row(r): c = r["coord"]; o = r["others"].get("run", {}); return (c.get("VmRSS"), c.get("fds"), c.get("sockets"), c.get("Threads"), r["stats"].get("goroutines"), o.get("n"), o.get("rss"), o.get("fds"), o.get("inotify"), o.get("watches"))
print("coordinator: rss KiB, fds, sockets, threads, goroutines | run: n, rss KiB, fds, inotify, watches")
print("  first", row(rs[0])); print("  last ", row(rs[-1]))
print("  peak rss", max(r["coord"].get("VmRSS", 0) for r in rs), "peak fds", max(r["coord"].get("fds", 0) for r in rs), "peak goroutines", max(r["stats"].get("goroutines", 0) for r in rs), "peak run inotify", max(r["others"].get("run", {}).get("inotify", 0) for r in rs), "peak run watches", max(r["others"].get("run", {}).get("watches", 0) for r in rs))
cpu = [(r["t"], r["coord"].get("cpu_ticks"), r["coord_pid"]) for r in rs]
segs = collections.defaultdict(list)
for t, c, p in cpu: segs[p].append((t, c))
for p, s in segs.items():
    if len(s) > 1: print(f"  coordinator pid {p}: {(s[-1][1]-s[0][1])/100:.1f} s CPU over {s[-1][0]-s[0][0]:.0f} s = {100*(s[-1][1]-s[0][1])/100/(s[-1][0]-s[0][0]):.1f}% of a core")
st = [l.split() for l in open(out + "/status.times")]
st = [(float(a[1]) - float(a[0]), int(a[3]), int(a[5]) if len(a) > 5 else 0) for a in st if a[2] == "0" and len(a) > 5]
st.sort(key=lambda x: x[2])
print(f"status --json: n={len(st)}, max leases {st[-1][2]}, at it {st[-1][0]:.2f} s and {st[-1][1]} bytes; p50 {sorted(x[0] for x in st)[len(st)//2]:.2f} s, max {max(x[0] for x in st):.2f} s")
