# baseline.py [V0 V1 H0 H1]: mck8s and the product (PROD) on VI-B seeds
# V0..V1-1 and heavy-tail H0..H1-1 (default 1-20 and 1-12), written as JSON
# to BASE. baseline.json holds 1-20 / 1-12; with 21 41 13 25, the runs no
# search saw, merged into baseline-all.json.
import json,os,subprocess,sys
v0,v1,h0,h1=(int(a) for a in (sys.argv[1:5] if len(sys.argv)>=5 else (1,21,1,13)))
out={}
for sc,seeds in [('vi-b',range(v0,v1)),('heavy-tail',range(h0,h1))]:
    for s in seeds:
        r=json.loads(subprocess.run([os.environ.get('PROD','/tmp/meridian-prod'),'sim','-q','-s',sc,'--seed',str(s),'-o','json'],capture_output=True,text=True).stdout)
        ps={}
        for p in r['scenarios'][0]['policies']:
            ps[p.get('policy',p.get('label',''))]=(p['maxPendingFraction'],p['cloudCPUHours'])
        out[f'{sc}{s}']=ps
        print(sc,s,ps,flush=True)
json.dump(out,open(os.environ.get('BASE','/tmp/baseline.json'),'w'))
