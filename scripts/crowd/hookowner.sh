#!/bin/bash
# hookowner.sh NAME ITER: a Claude Code session seen only through its hooks
name=$1; iter=$2; ws=$WS; log=$LOGDIR/$name.ops
cd $ws
t() { date +%s.%N; }
for i in $(seq 1 $iter); do
  s=$((RANDOM % 12)); f=$ws/shared/s$s.txt
  ev='{"session_id":"'$name'","cwd":"'$ws'","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"'$f'","content":"x"}}'
  st=$(t); echo "$ev" | $LG hook claude-code --as $name >$LOGDIR/$name.last 2>>$LOGDIR/$name.out; rc=$?; out=$(cat $LOGDIR/$name.last)
  if [ $rc = 0 ] && ! echo "$out" | grep -q '"deny"'; then echo "$name $i" >> $f; d=ok; else d=deny; fi
  echo "$st $(t) $rc hook-write shared/s$s.txt $d" >>$log
  echo "$out" >> $LOGDIR/$name.out
  if [ $((i % 5)) = 0 ]; then
    echo '{"session_id":"'$name'","cwd":"'$ws'","hook_event_name":"Stop"}' | $LG hook claude-code --as $name >>$LOGDIR/$name.out 2>&1
    echo "$(t) $(t) $? hook-stop" >>$log
    sleep 3
  fi
  sleep 0.$((RANDOM % 9 + 1))
done
echo "$(t) $(t) 0 done" >>$log
