#!/usr/bin/env python3
# sampler.py OUT: every 2 s, the coordinator's and the workers' resources, as JSON lines in OUT/res.jsonl
import json, os, sys, time, subprocess, socket
out = sys.argv[1]
LG = os.environ["LG"]
SOCK = os.environ["WS"] + "/.git/leasegate/coord.sock"
def coord_pid():
    try:
        return json.load(open(out + "/st.tmp"))["coordinator"]["pid"]
    except Exception:
        return None
def stats():
    try:
        s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(SOCK)
        s.sendall(b"GET /v1/stats HTTP/1.0\r\nHost: x\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b: break
            data += b
        s.close()
        return json.loads(data.split(b"\r\n\r\n", 1)[1])
    except Exception as e:
        return {"error": str(e)}
def proc(pid):
    d = {}
    try:
        for l in open(f"/proc/{pid}/status"):
            k, v = l.split(":", 1)
            if k in ("VmRSS", "Threads"): d[k] = int(v.split()[0])
        st = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        d["cpu_ticks"] = int(st[11]) + int(st[12])
        fds = os.listdir(f"/proc/{pid}/fd"); d["fds"] = len(fds)
        ino = wd = socks = 0
        for fd in fds:
            try: t = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError: continue
            if t == "anon_inode:inotify":
                ino += 1
                try: wd += sum(1 for l in open(f"/proc/{pid}/fdinfo/{fd}") if l.startswith("inotify wd:"))
                except OSError: pass
            elif t.startswith("socket:"): socks += 1
        d.update(inotify=ino, watches=wd, sockets=socks)
    except Exception:
        pass
    return d
def mine():
    res = []
    for p in os.listdir("/proc"):
        if not p.isdigit(): continue
        try: cl = open(f"/proc/{p}/cmdline").read().split("\0")
        except OSError: continue
        if cl and cl[0] == LG: res.append((int(p), cl[1] if len(cl) > 1 else ""))
    return res
while not os.path.exists(out + "/stop"):
    t = time.time(); cp = coord_pid()
    rec = {"t": t, "coord_pid": cp, "coord": proc(cp) if cp else {}, "stats": stats()}
    st = rec["stats"]
    if isinstance(st, dict): st.pop("commit_latency_seconds", None); st.pop("commit_batch_events", None)
    per = {}
    for pid, sub in mine():
        if pid == cp: continue
        p = proc(pid); a = per.setdefault(sub, {"n": 0, "inotify": 0, "watches": 0, "fds": 0, "rss": 0})
        a["n"] += 1; a["inotify"] += p.get("inotify", 0); a["watches"] += p.get("watches", 0); a["fds"] += p.get("fds", 0); a["rss"] += p.get("VmRSS", 0)
    rec["others"] = per
    with open(out + "/res.jsonl", "a") as f: f.write(json.dumps(rec) + "\n")
    time.sleep(max(0, 2 - (time.time() - t)))
