#!/bin/bash
# worker.sh NAME ITER MODE : what an agent does, each op timed into $LOGDIR/NAME.ops
name=$1; iter=$2; mode=$3
log=$LOGDIR/$name.ops
ws=$WS
cd $ws
t() { date +%s.%N; }
op() { local what=$1; shift; local s=$(t); "$@" >>$LOGDIR/$name.out 2>&1; local rc=$?; echo "$s $(t) $rc $what" >>$log; return $rc; }
mkdir -p own/$name 2>/dev/null
for i in $(seq 1 $iter); do
  s=$((RANDOM % 12)); sh=""
  if [ $((i % 3)) = 1 ]; then op "sed shared/s$s.txt" sed -i "1s/.*/$name $i/" shared/s$s.txt; sh=shared/s$s.txt; fi
  op "write own/$name/f$i" sh -c "echo $name $i > own/$name/f$i.txt"
  c=$((RANDOM % 30)); f=$((RANDOM % 100))
  op "sed corpus/d$c/f$f" sed -i "s/\$/ $name/" corpus/d$c/f$f.txt
  if [ $((i % 3)) = 0 ]; then
    op "mv own/$name/f$i" mv own/$name/f$i.txt own/$name/m$i.txt
    op "rm own/$name/m$i" rm -f own/$name/m$i.txt
  fi
  if [ $((i % 4)) = 0 ] || [ -n "$sh" ]; then
    for k in 1 2 3 4 5; do
      op "commit own" sh -c "git add own/$name $sh corpus/d$c/f$f.txt && git commit -qm '$name $i' -- own/$name $sh corpus/d$c/f$f.txt" && break
      sleep 0.$((RANDOM % 9 + 1))
    done
  fi
  case $mode in
    build) [ $((i % 5)) = 1 ] && op "go vet gate" go vet ./gate/ ;;
    stash) [ $((i % 6)) = 5 ] && { op "git stash" git stash; op "git stash pop" git stash pop; } ;;
  esac
  sleep 0.$((RANDOM % 9 + 1))
done
echo "$(t) $(t) 0 done" >>$log
