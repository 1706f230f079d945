# validate.py: the product and every variant of FROM (local.py's output) that
# met both seed-1 targets, on VI-B 1-20 and heavy-tail 1-12, to OUT.
import json,os
from concurrent.futures import ThreadPoolExecutor
from common import run
runs=[('vi-b',s) for s in range(1,21)]+[('heavy-tail',s) for s in range(1,13)]
recs=[json.loads(l) for l in open(os.environ.get('FROM','/tmp/local.jsonl'))]
cands=[{}]+[r['env'] for r in recs if r['ht1'][3] and r.get('vib1',[0,0,0,False])[3]]
def summarize(env):
    with ThreadPoolExecutor(2) as ex: rs=list(ex.map(lambda a: run(env,*a),runs))
    out={}
    for sc in ['vi-b','heavy-tail']:
        for part,sel in [('train',lambda s: s<=(10 if sc=='vi-b' else 6)),('held',lambda s: s>(10 if sc=='vi-b' else 6))]:
            x=[r for r in rs if r[0]==sc and sel(r[1])]
            out[f'{sc}-{part}']='both %d/%d low %d sum %+.2f'%(sum(r[5] for r in x),len(x),sum(r[2]<=0.01 for r in x),sum(r[4] for r in x))
    return out,rs
res=[]
for env in cands:
    o,rs=summarize(env)
    res.append({'env':env,'sum':o,'runs':rs})
    print(env); [print('   ',k,v) for k,v in o.items()]
json.dump(res,open(os.environ.get('OUT','/tmp/validate.json'),'w'))
