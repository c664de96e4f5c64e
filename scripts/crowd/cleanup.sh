#!/bin/bash
# cleanup.sh OUT: resolves what is still blocked (--abort), ends the monitors, workers and agents of the run, and stops the coordinator
OUT=$1; cd "$WS"
touch $OUT/stop
for b in $($LG --no-start blockers --json 2>/dev/null | python3 -c 'import json,sys; [print(b["id"]) for b in json.load(sys.stdin)]'); do $LG --no-start resolve $b --abort >/dev/null 2>&1; done
sleep 3
for f in $OUT/*.pid; do kill $(cat $f) 2>/dev/null; done
for p in $(pgrep -f "^$LG run --as "); do kill $p; done
for p in $(pgrep -f "hookowner.sh h"); do kill $p; done
sleep 2
$LG --no-start serve --stop --force
