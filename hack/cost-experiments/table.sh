#!/bin/bash
# table.sh [BIN] [label]: VI-B seeds 1-7 and heavy-tail seeds 1-4, mck8s beside meridian
# (max pending %, cloud CPU-hours), two runs at a time; X_* variables pass through
# to a binary built with experiments.patch (see README.md).
BIN=${1:-/tmp/meridian-exp}; LABEL=${2:-}
run() {
  $BIN sim -q -s $1 --seed $2 -o json | python3 -c "
import json,sys
d=json.load(sys.stdin)['scenarios'][0]
p={x['policy']:x for x in d['policies']}
m,r=p['mck8s'],p['meridian']
ok = r['maxPendingFraction']<=0.01 and r['cloudCPUHours']<=m['cloudCPUHours']+1e-9
print('%-10s %d  mck8s %5.1f%% %6.2f | meridian %5.1f%% %6.2f  diff %+6.2f %s'%('$1',$2,100*m['maxPendingFraction'],m['cloudCPUHours'],100*r['maxPendingFraction'],r['cloudCPUHours'],r['cloudCPUHours']-m['cloudCPUHours'],'OK' if ok else ''))
"
}
export -f run; export BIN
echo "== $LABEL $(env | grep '^X_' | tr '\n' ' ')"
( for s in 1 2 3 4 5 6 7; do echo vi-b $s; done; for s in 1 2 3 4; do echo heavy-tail $s; done ) | xargs -P 2 -n 2 bash -c 'run $0 $1' | sort -k1,1r -k2,2n | awk '{print} / OK/{ok++} {split($0,a,"meridian"); } END{print "OK:",ok+0,"/",NR}'
