# evalset.py ENVJSON V0 V1 H0 H1: the variant (X_* switches as JSON) on VI-B seeds
# V0..V1-1 and heavy-tail seeds H0..H1-1, beside mck8s on each (BASE:
# baseline-all.json), with the sums per scenario and the seed-1 runs; SVG=FILE
# also writes chart.py's scatter of every run (LABEL names the variant).
import json,os,sys
from concurrent.futures import ThreadPoolExecutor
from common import run, base
runs=[('vi-b',s) for s in range(int(sys.argv[2]),int(sys.argv[3]))]+[('heavy-tail',s) for s in range(int(sys.argv[4]),int(sys.argv[5]))]
env=json.loads(sys.argv[1])
with ThreadPoolExecutor(2) as ex: rs=list(ex.map(lambda a: run(env,*a),runs))
for sc in ['vi-b','heavy-tail']:
    x=[r for r in rs if r[0]==sc]
    m=[base[f'{sc}{r[1]}']['mck8s'] for r in x]
    print(sc,'both %d/%d low %d sum diff %+.2f'%(sum(r[5] for r in x),len(x),sum(r[2]<=0.01 for r in x),sum(r[4] for r in x)))
    print('  mean max pending %.2f%% (mck8s %.2f%%), CPU-h %.2f (mck8s %.2f), at or below 1%%: mck8s %d'%(
        100*sum(r[2] for r in x)/len(x),100*sum(p for p,_ in m)/len(m),sum(r[3] for r in x),sum(c for _,c in m),sum(p<=0.01 for p,_ in m)))
def median(v): v=sorted(v); return (v[(len(v)-1)//2]+v[len(v)//2])/2 if v else 0
mck8s=lambda r: base[f'{r[0]}{r[1]}']['mck8s']
high=[100*r[2] for r in rs if r[2]>0.01]
over=[100*r[4]/mck8s(r)[1] for r in rs if r[4]>0.005]
print('all: pending at most mck8s\'s on %d/%d; targets missed: pending only %d, cost only %d, both %d'%(
    sum(r[2]<=mck8s(r)[0] for r in rs),len(rs),sum(r[2]>0.01 and r[4]<=0.005 for r in rs),
    sum(r[2]<=0.01 and r[4]>0.005 for r in rs),sum(r[2]>0.01 and r[4]>0.005 for r in rs)))
print('  pending above 1%%: median %.2f%%, max %.2f%%; cost above mck8s\'s: median %+.1f%%, max %+.1f%%'%(
    median(high),max(high,default=0),median(over),max(over,default=0)))
for r in rs:
    if r[1]==1: print('  seed 1',r)
if os.environ.get('SVG'):
    from chart import scatter
    scatter(rs,base,os.environ['SVG'],os.environ.get('LABEL','the variant'))

