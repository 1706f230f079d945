import json,subprocess,random,sys,os
from concurrent.futures import ThreadPoolExecutor
base=json.load(open(os.environ.get('BASE','/tmp/baseline.json')))
BIN=os.environ.get('BIN','/tmp/meridian-r36'); OUT=sys.argv[1]; N=int(sys.argv[2]); seed=int(sys.argv[3])
def run(env,sc,s):
    e=dict(os.environ); e.update(env)
    r=json.loads(subprocess.run([BIN,'sim','-q','-s',os.environ.get('SC','/tmp/sc')+f'/{sc}.yaml','--seed',str(s),'-o','json'],capture_output=True,text=True,env=e).stdout)
    p=r['scenarios'][0]['policies'][0]
    return p['maxPendingFraction'],p['cloudCPUHours']
def ok(env,sc,s):
    pend,cost=run(env,sc,s); m=base[f'{sc}{s}']['mck8s'][1]
    return (pend,cost,cost-m,pend<=0.01 and cost<=m+0.005)
starts=[json.loads(l)['env'] for l in open(os.environ.get('FROM','/tmp/search.jsonl')) if json.loads(l)['ht1'][3]]
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
