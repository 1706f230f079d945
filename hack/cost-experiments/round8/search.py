# search.py N OUT [SEED]: random search over the switches, on VI-B 1-10 and
# heavy-tail 1-6 (common.py's BIN, SC, BASE).
import json,random,sys
from concurrent.futures import ThreadPoolExecutor
from common import run
N=int(sys.argv[1]); OUT=sys.argv[2]
train=[('vi-b',s) for s in range(1,11)]+[('heavy-tail',s) for s in range(1,7)]
def evaluate(env,runs):
    res={}
    for sc,s in runs:
        res[f'{sc}{s}']=run(env,sc,s)[2:]
    return res
def sample(rng):
    env={}
    env['X_TU']=str(round(rng.uniform(0.6,1.3),2))
    env['X_TW']=str(rng.choice([5,7.5,10,12.5,15,20]))
    env['X_P']=str(round(rng.uniform(0,2),2))
    env['X_CLLEAD']=str(round(rng.uniform(0,2.5),2))
    env['X_MINSLOPE']=str(rng.choice([0,0,1,2,3]))
    if rng.random()<0.3: env['X_LARGEST']='1'
    if rng.random()<0.4:
        env['X_NOISE']=str(round(rng.uniform(0.2,2.5),2))
        if rng.random()<0.5: env['X_NOISEC']='1'
        if rng.random()<0.3: env['X_NOISEH']='1'
    if rng.random()<0.3: env['X_PROVGROW']='1'
    if rng.random()<0.2: env['X_Q']=str(rng.choice([0.9,0.95,0.99]))
    return env
rng=random.Random(int(sys.argv[3]) if len(sys.argv)>3 else 1)
envs=[sample(rng) for _ in range(N)]
def job(env):
    r=evaluate(env,train)
    both=sum(v[3] for v in r.values()); low=sum(v[0]<=0.01 for v in r.values())
    rec={'env':env,'both':both,'low':low,'sumdiff':round(sum(v[2] for v in r.values()),2),'vib1':r['vi-b1'],'ht1':r['heavy-tail1'],'runs':r}
    with open(OUT,'a') as f: f.write(json.dumps(rec)+'\n')
    print(both,low,rec['sumdiff'],r['vi-b1'][3],r['heavy-tail1'][3],env,flush=True)
with ThreadPoolExecutor(2) as ex: list(ex.map(job,envs))
