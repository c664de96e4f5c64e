#!/bin/bash
# operator.sh OUT: what an operator does with open blockers: retry the freed, deny the stale
OUT=$1; cd "$WS"
while [ ! -e $OUT/stop ]; do
  $LG --no-start blockers --json 2>/dev/null | python3 -c '
import json,sys,datetime
now=datetime.datetime.now(datetime.timezone.utc)
for b in json.load(sys.stdin):
    if b.get("free_since"): print(b["id"], "--retry")
    else:
        r=datetime.datetime.fromisoformat(b["retried_at"][:26].rstrip("Z")+"+00:00") if b.get("retried_at") else now
        if (now-r).total_seconds()>15: print(b["id"], "--deny")
' | while read id act; do s=$(date +%s.%N); out=$($LG --no-start resolve $id $act --by operator 2>&1); echo "$s $(date +%s.%N) $? $id $act $(echo $out | head -c 200)" >> $OUT/operator.log; done
  sleep 2
done
