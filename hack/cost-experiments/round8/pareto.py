# pareto.py OUT N SEED: random search for variants that beat the product on
# pending and cost together. Trains on VI-B seeds 1-10 and heavy-tail 1-6,
# keeps a variant only if it has at least as many runs at or below 1 % as
# the product there and costs less in sum, then runs it on the held-out
# seeds (VI-B 11-20, heavy-tail 7-12). Env: BIN (the product with
# round3.patch and round6.patch), BASE (baseline.json), SC (meridian-only
# scenarios).
import json,random,sys
from concurrent.futures import ThreadPoolExecutor
from common import run
OUT=sys.argv[1]; N=int(sys.argv[2]); rng=random.Random(int(sys.argv[3]))
train=[('vi-b',s) for s in range(1,11)]+[('heavy-tail',s) for s in range(1,7)]
held=[('vi-b',s) for s in range(11,21)]+[('heavy-tail',s) for s in range(7,13)]
def score(env,runs):
    with ThreadPoolExecutor(2) as ex: rs=list(ex.map(lambda a: run(env,*a),runs))
    return {'low':sum(r[2]<=0.01 for r in rs),'both':sum(r[5] for r in rs),'diff':round(sum(r[4] for r in rs),2),'runs':rs}
def sample():
    env={'X_TU':str(round(rng.uniform(0.7,1.2),2)),'X_TW':str(rng.choice([7.5,10,12.5,15,20])),
         'X_P':str(round(rng.uniform(0,1.5),2)),'X_CLLEAD':str(round(rng.uniform(0.5,3),2)),'X_MINSLOPE':str(rng.choice([0,1,2,3]))}
    if rng.random()<0.5: env['X_PROVGROW']='1'
    if rng.random()<0.3: env['X_LARGEST']='1'
    if rng.random()<0.4:
        env['X_NOISE']=str(round(rng.uniform(0.2,2),2))
        if rng.random()<0.5: env['X_NOISEC']='1'
    return env
p_train=score({},train); p_held=score({},held)
print('product train',{k:v for k,v in p_train.items() if k!='runs'},'held',{k:v for k,v in p_held.items() if k!='runs'},flush=True)
for i in range(N):
    env=sample(); t=score(env,train)
    rec={'env':env,'train':{k:v for k,v in t.items() if k!='runs'}}
    if t['low']>=p_train['low'] and t['diff']<p_train['diff']:
        h=score(env,held); rec['held']={k:v for k,v in h.items() if k!='runs'}
        print(rec,flush=True)
    with open(OUT,'a') as f: f.write(json.dumps(rec)+'\n')
