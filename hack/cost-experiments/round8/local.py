# local.py OUT N SEED: perturbs the variants of FROM (search.py's output) that
# met heavy-tail seed 1's targets, and runs seed 1 of both scenarios.
import json,os,random,sys
from concurrent.futures import ThreadPoolExecutor
from common import run
OUT=sys.argv[1]; N=int(sys.argv[2]); seed=int(sys.argv[3])
def ok(env,sc,s):
    return run(env,sc,s)[2:]
starts=[r['env'] for r in map(json.loads,open(os.environ.get('FROM','/tmp/search.jsonl'))) if r['ht1'][3]]
rng=random.Random(seed)
def perturb(env):
    e=dict(env)
    for k,lo,hi in [('X_TU',0.6,1.3),('X_P',0,2),('X_CLLEAD',0,3),('X_NOISE',0,2.5)]:
        if k in e or k!='X_NOISE':
            v=float(e.get(k,1 if k!='X_TU' else 0.85))+rng.gauss(0,0.12*(hi-lo))
            e[k]=str(round(min(hi,max(lo,v)),2))
    if rng.random()<0.2: e['X_TW']=str(rng.choice([5,7.5,10,12.5,15,20]))
    if rng.random()<0.15: e['X_MINSLOPE']=str(rng.choice([0,1,2,3]))
    if rng.random()<0.15:
        if 'X_PROVGROW' in e: del e['X_PROVGROW']
        else: e['X_PROVGROW']='1'
    if rng.random()<0.15:
        if 'X_NOISEC' in e: del e['X_NOISEC']
        else: e['X_NOISEC']='1'
    if rng.random()<0.1:
        if 'X_LARGEST' in e: del e['X_LARGEST']
        else: e['X_LARGEST']='1'
    return e
def job(i):
    env=perturb(rng.choice(starts))
    h=ok(env,'heavy-tail',1)
    rec={'env':env,'ht1':h}
    if h[3]:
        rec['vib1']=ok(env,'vi-b',1)
    with open(OUT,'a') as f: f.write(json.dumps(rec)+'\n')
    if h[3]: print(rec,flush=True)
with ThreadPoolExecutor(2) as ex: list(ex.map(job,range(N)))
