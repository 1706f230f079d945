# common.py: what every round-8 script shares. run() is one simulation of the
# meridian-only scenario (SC) with the X_* switches of env, set beside
# mck8s's figure for the same run (BASE); BIN is the product built with
# round3.patch and round6.patch.
import json,os,subprocess
BIN=os.environ.get('BIN','/tmp/meridian-r36'); SC=os.environ.get('SC','/tmp/sc')
base=json.load(open(os.environ.get('BASE','/tmp/baseline.json')))
def run(env,sc,s):
    """(scenario, seed, max pending, CPU-h, CPU-h minus mck8s's, both targets met)"""
    e=dict(os.environ); e.update(env)
    r=json.loads(subprocess.run([BIN,'sim','-q','-s',f'{SC}/{sc}.yaml','--seed',str(s),'-o','json'],capture_output=True,text=True,env=e,check=True).stdout)
    p=r['scenarios'][0]['policies'][0]; m=base[f'{sc}{s}']['mck8s'][1]
    return (sc,s,p['maxPendingFraction'],p['cloudCPUHours'],p['cloudCPUHours']-m,p['maxPendingFraction']<=0.01 and p['cloudCPUHours']<=m+0.005)
