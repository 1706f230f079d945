import json,os,sys
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)),'validate.py')).read().split('cands=')[0])
from concurrent.futures import ThreadPoolExecutor
cands=[json.loads(a) for a in sys.argv[1:]]
for env in cands:
    with ThreadPoolExecutor(2) as ex: rs=list(ex.map(lambda a: run(env,*a),runs))
    s1=[r for r in rs if r[1]==1]
    print(env,'both %d/32 low %d/32 sum vi-b %+.2f ht %+.2f'%(sum(x[5] for x in rs),sum(x[2]<=0.01 for x in rs),sum(x[4] for x in rs if x[0]=='vi-b'),sum(x[4] for x in rs if x[0]=='heavy-tail')),
      ' seed1:',' '.join('%s %.2f%% %.2f %s'%(r[0],100*r[2],r[3],'OK' if r[5] else '-') for r in s1),flush=True)
