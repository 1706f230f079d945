# baseline2.py: mck8s and the product on VI-B seeds 21-40 and heavy-tail
# 13-24, the runs no search saw (PROD, BASE as baseline.py).
import json,os,subprocess,sys
out={}
for sc,seeds in [('vi-b',range(21,41)),('heavy-tail',range(13,25))]:
    for s in seeds:
        r=json.loads(subprocess.run([os.environ.get('PROD','/tmp/meridian-prod'),'sim','-q','-s',sc,'--seed',str(s),'-o','json'],capture_output=True,text=True).stdout)
        ps={}
        for p in r['scenarios'][0]['policies']:
            ps[p.get('policy',p.get('label',''))]=(p['maxPendingFraction'],p['cloudCPUHours'])
        out[f'{sc}{s}']=ps
        print(sc,s,ps,flush=True)
json.dump(out,open(os.environ.get('BASE','/tmp/baseline2.json'),'w'))
