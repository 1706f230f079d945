#!/bin/bash
# table.sh [BIN] [label] [scenario-dir]: VI-B seeds 1-7 and heavy-tail seeds 1-4,
# mck8s beside meridian (max pending %, cloud CPU-hours), one run at a time (P=2
# for two), then the sums per scenario; X_* variables pass through to a binary
# built with experiments.patch (see README.md). With a scenario directory, the
# scenarios are DIR/vi-b.yaml and DIR/heavy-tail.yaml instead of the built-ins.
BIN=${1:-/tmp/meridian-exp}; LABEL=${2:-}; DIR=${3:-}
run() {
  sc=$1; [ -n "$DIR" ] && sc=$DIR/$1.yaml
  $BIN sim -q -s $sc --seed $2 -o json | python3 -c "
import json,sys
d=json.load(sys.stdin)['scenarios'][0]
p={x['policy']:x for x in d['policies']}
m,r=p['mck8s'],p['meridian']
ok = r['maxPendingFraction']<=0.01 and r['cloudCPUHours']<=m['cloudCPUHours']+1e-9
print('%-10s %d  mck8s %5.2f%% %6.2f | meridian %5.2f%% %6.2f  diff %+6.2f %s'%('$1',$2,100*m['maxPendingFraction'],m['cloudCPUHours'],100*r['maxPendingFraction'],r['cloudCPUHours'],r['cloudCPUHours']-m['cloudCPUHours'],'OK' if ok else ''))
"
}
export -f run; export BIN DIR
echo "== $LABEL $(env | grep '^X_' | tr '\n' ' ')"
( for s in 1 2 3 4 5 6 7; do echo vi-b $s; done; for s in 1 2 3 4; do echo heavy-tail $s; done ) | xargs -P ${P:-1} -n 2 bash -c 'run $0 $1' | sort -k1,1r -k2,2n | awk '
{print}
/ OK/{ok++}
{sc=$1; pm[sc]+=substr($4,1,length($4)-1); cm[sc]+=$5; pr[sc]+=substr($8,1,length($8)-1); cr[sc]+=$9; n[sc]++; if (substr($8,1,length($8)-1)+0<=1.0) low[sc]++}
END{for (sc in n) printf "sum %-10s mck8s %6.2f CPU-h | meridian %6.2f CPU-h  diff %+6.2f  meridian <=1%%: %d/%d\n", sc, cm[sc], cr[sc], cr[sc]-cm[sc], low[sc], n[sc]; print "OK:",ok+0,"/",NR}'
