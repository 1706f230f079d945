import json,subprocess,sys,os
from concurrent.futures import ThreadPoolExecutor
base=json.load(open(os.environ.get('BASE','/tmp/baseline.json')))
BIN=os.environ.get('BIN','/tmp/meridian-r36')
runs=[('vi-b',s) for s in range(1,21)]+[('heavy-tail',s) for s in range(1,13)]
def run(env,sc,s):
    e=dict(os.environ); e.update(env)
    r=json.loads(subprocess.run([BIN,'sim','-q','-s',os.environ.get('SC','/tmp/sc')+f'/{sc}.yaml','--seed',str(s),'-o','json'],capture_output=True,text=True,env=e).stdout)
    p=r['scenarios'][0]['policies'][0]
    m=base[f'{sc}{s}']['mck8s'][1]
    return (sc,s,p['maxPendingFraction'],p['cloudCPUHours'],p['cloudCPUHours']-m,p['maxPendingFraction']<=0.01 and p['cloudCPUHours']<=m+0.005)
cands=[{}]+[json.loads(l)['env'] for l in open(os.environ.get('FROM','/tmp/local.jsonl')) if json.loads(l)['ht1'][3] and json.loads(l).get('vib1',[0,0,0,False])[3]]
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
