import csv,sys
# pend.py file -> times where pendingFraction > 0.01 with details
rows=list(csv.DictReader(open(sys.argv[1])))
cols=[c for c in rows[0] if c.endswith('pendingPods')]
for r in rows:
    if float(r['pendingFraction'])>float(sys.argv[2] if len(sys.argv)>2 else 0.01):
        print('%.2f asked %s running %s unplaced %s frac %.3f paid %s alloc %s'%(float(r['minute']),r['asked'],r['running'],r['unplaced'],float(r['pendingFraction']),r['cloudPaidCores'],r.get('cloud.allocatableCores')), {c.split('.')[0]:r[c] for c in cols if r[c]!='0'})
