#!/bin/bash
# chaos.sh OUT: kills, a stop and a coordinator restart while the workers run
OUT=$1
now() { date +%s.%N; }
log() { echo "$(now) $*" >> $OUT/chaos.log; }
pid_of() { pgrep -f "^$LG run --as $1 " | head -1; }
wpid_of() { pgrep -f "worker.sh $1 " | head -1; }
sleep 15
for w in w3 w9 w18; do p=$(wpid_of $w); [ -n "$p" ] && { kill -9 $p; log "kill9-worker $w $p"; }; done
p=$(pgrep -f "hookowner.sh h2 " | head -1); [ -n "$p" ] && { kill -9 $p; log "kill9-hookowner h2 $p"; }
sleep 5
for w in w6 w12 w20; do p=$(pid_of $w); [ -n "$p" ] && { kill -9 $p; log "kill9-sidecar $w $p"; }; done
sleep 5
tree() { echo $1; for c in $(pgrep -P $1); do tree $c; done; }
p=$(pid_of w14); if [ -n "$p" ]; then T=$(tree $p); kill -STOP $T; log "stop w14 $p tree $(echo $T)"; fi
sleep 10
cp=$(python3 -c "import json;print(json.load(open('$OUT/st.tmp'))['coordinator']['pid'])"); kill -9 $cp; log "kill9-coordinator $cp"
sleep 10
[ -n "$T" ] && { kill -CONT $T; log "cont w14 $T"; }
log "chaos done"
