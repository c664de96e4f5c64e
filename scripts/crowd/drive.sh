#!/bin/bash
# drive.sh OUT N_SECCOMP N_FUSE N_CHECKOUT ROUNDS: starts the coordinator, the monitors (status, events, console, resources), the operator, and the workers in the background (needs LG, WS, CROWD)
set -u
OUT=$1; NS=${2:-16}; NF=${3:-6}; NC=${4:-6}; ITER=${5:-24}
export LOGDIR=$OUT
export LEASEGATE_AGENT_PROGRAM=hookowner.sh LEASEGATE_RETRY_AFTER=5s LEASEGATE_IDLE_AFTER=2s
mkdir -p $OUT; cd $WS; rm -rf .git/leasegate
SOCK=$WS/.git/leasegate/coord.sock
now() { date +%s.%N; }
$LG serve --retry-after 5s --idle-after 2s --idle-exit 0 --log-level info >$OUT/serve1.log 2>&1 &
echo $! > $OUT/serve.pid.1
for i in $(seq 50); do $LG --no-start status >/dev/null 2>&1 && break; sleep 0.1; done
T0=$(now); echo $T0 > $OUT/t0
# monitors
( while [ ! -e $OUT/stop ]; do s=$(now); $LG --no-start status --json > $OUT/st.tmp 2>>$OUT/status.err; rc=$?; echo "$s $(now) $rc $(wc -c < $OUT/st.tmp) $(python3 -c 'import json,sys;d=json.load(open(sys.argv[1]));print(len(d.get("owners") or []),len(d.get("leases") or []),len(d.get("blockers") or []),len(d.get("contention") or []))' $OUT/st.tmp 2>/dev/null)" >> $OUT/status.times; sleep 1; done ) &
python3 $CROWD/sampler.py $OUT & echo $! > $OUT/sampler.pid
( while [ ! -e $OUT/stop ]; do a=$(tail -1 $OUT/events.jsonl 2>/dev/null | python3 -c 'import json,sys; print(json.loads(sys.stdin.read() or "{\"seq\":0}")["seq"])' 2>/dev/null || echo 0); echo "$(now) follow --after $a" >> $OUT/events.restarts; $LG --no-start events --follow --json --after $a >> $OUT/events.jsonl 2>>$OUT/events.err; sleep 0.5; done ) &
$CROWD/operator.sh $OUT &
$LG events --follow --json 2>$OUT/slowevents.err | python3 -c '
import sys,time
n=0
for l in sys.stdin:
    n+=1; time.sleep(0.2)
    if n%20==0: print(time.time(), n, flush=True)
' > $OUT/slowevents.log & echo $! > $OUT/slowevents.pid
$LG ui --json > $OUT/ui.json 2>$OUT/ui.err & echo $! > $OUT/ui.pid
sleep 1; U=$(python3 -c "import json;print(json.load(open('$OUT/ui.json'))['login_url'])"); B=${U%%/login*}; echo $B > $OUT/ui.base; curl -s -c $OUT/jar -o /dev/null "$U"
curl -s -N -b $OUT/jar "$B/events" > $OUT/sse.fast 2>&1 & echo $! > $OUT/ssefast.pid
curl -s -N --limit-rate 200 -b $OUT/jar "$B/events" > $OUT/sse.slow 2>&1 & echo $! > $OUT/sseslow.pid
( while [ ! -e $OUT/stop ]; do s=$(now); c=$(curl -s -b $OUT/jar -o $OUT/page.html -w "%{http_code} %{size_download}" "$B/"); echo "$s $(now) $c $(grep VmRSS /proc/$(cat $OUT/ui.pid)/status | awk '{print $2}') $(wc -c < $OUT/sse.fast) $(wc -c < $OUT/sse.slow)" >> $OUT/ui.times; sleep 3; done ) &
# workers
start_worker() { # name gate mode
  local name=$1 gate=$2 mode=$3
  ( $LG run --as $name --gate $gate --retry-after 5s --idle-after 2s -- $CROWD/worker.sh $name $ITER $mode >$OUT/$name.run 2>&1; echo "$(now) exit $?" >> $OUT/$name.run ) &
}
n=0
for i in $(seq 1 $NS); do n=$((n+1)); m=plain; [ $i -le 2 ] && m=build; [ $i -ge 3 ] && [ $i -le 4 ] && m=stash; start_worker w$n seccomp $m; done
for i in $(seq 1 $NF); do n=$((n+1)); m=plain; [ $i = 1 ] && m=build; start_worker w$n fuse $m; done
for i in $(seq 1 $NC); do n=$((n+1)); d=$((n % 30)); ( s=$(now); $LG acquire "corpus/d$d/**" --as co$n --ttl 1h --json > $OUT/co$n.acq 2>&1; echo "$s $(now) $? acquire corpus/d$d" >> $OUT/co$n.ops; sleep $((10 + RANDOM % 20)); s=$(now); $LG release "corpus/d$d/**" --as co$n >> $OUT/co$n.acq 2>&1; echo "$s $(now) $? release" >> $OUT/co$n.ops ) & start_worker w$n seccomp plain; done
for h in h1 h2; do ( $CROWD/hookowner.sh $h $ITER ) & done
sleep 1; echo "workers started $(now)" >> $OUT/chaos.log
