#!/bin/bash
# fast.sh BIN [label]: table.sh for the predictive mode alone. It runs only
# the meridian policy of VI-B seeds 1-7 and heavy-tail seeds 1-4 (one run at
# a time, about a third of table.sh's time) and sets it beside mck8s's
# figures as table.sh measured them after decide.WaitsForRoom came to the simulator (seeds vi-b 3 and heavy-tail 2 moved; 3654398..fd4c95f had 7.00 and 66.38). Valid while the binary's
# changes touch the predictive mode only (every X_* switch does): mck8s's
# runs do not change then. Run from the repository's root.
BIN=${1:-/tmp/meridian-exp}; LABEL=${2:-}
SC=$(mktemp -d); trap 'rm -rf $SC' EXIT
for s in vi-b heavy-tail; do
  python3 - internal/sim/scenario/builtin/$s.yaml $SC/$s.yaml <<'PY'
import sys
t = open(sys.argv[1]).read()
i = t.index('\npolicies:') + 1
out, keep = ['policies:'], False
for line in t[i:].split('\n')[1:]:
    if line.startswith('  - name:'):
        keep = 'meridian' in line
    if keep and not line.startswith('  #'):
        out.append(line)
open(sys.argv[2], 'w').write(t[:i] + '\n'.join(out) + '\n')
PY
done
declare -A M=( [vi-b1]=7.77 [vi-b2]=19.87 [vi-b3]=7.13 [vi-b4]=13.53 [vi-b5]=13.03 [vi-b6]=4.63 [vi-b7]=22.57
  [heavy-tail1]=46.40 [heavy-tail2]=66.82 [heavy-tail3]=51.25 [heavy-tail4]=73.00 )
echo "== $LABEL $(env | grep '^X_' | tr '\n' ' ')"
for sc in vi-b heavy-tail; do
  n=7; [ $sc = heavy-tail ] && n=4
  for s in $(seq 1 $n); do
    $BIN sim -q -s $SC/$sc.yaml --seed $s -o json | python3 -c "
import json,sys
r=json.load(sys.stdin)['scenarios'][0]['policies'][0]
m=${M[$sc$s]}
ok = r['maxPendingFraction']<=0.01 and r['cloudCPUHours']<=m+0.005
print('%-10s %d  mck8s %6.2f | meridian %5.2f%% %6.2f  diff %+6.2f %s'%('$sc',$s,m,100*r['maxPendingFraction'],r['cloudCPUHours'],r['cloudCPUHours']-m,'OK' if ok else ''))
"
  done
done | awk '{print} / OK/{ok++} {sc=$1; cm[sc]+=$4; p=substr($7,1,length($7)-1); cr[sc]+=$8; n[sc]++; if (p+0<=1.0) low[sc]++}
END{for (sc in n) printf "sum %-10s mck8s %6.2f | meridian %6.2f  diff %+6.2f  <=1%%: %d/%d\n", sc, cm[sc], cr[sc], cr[sc]-cm[sc], low[sc], n[sc]; print "OK:",ok+0,"/",NR}'
