import csv,sys
def load(f): return list(csv.DictReader(open(f)))
d,sc=sys.argv[1],sys.argv[2]
out=[]
for pol in ['mck8s','meridian']:
    R=load(f'{d}/{sc}-{pol}.csv')
    acc={}
    for i in range(len(R)-1):
        t=float(R[i]['minute']); dt=(float(R[i+1]['minute'])-t)/60
        ph='<60' if t<60 else '>60'
        a=acc.setdefault(ph,[0,0])
        a[0]+=float(R[i]['cloudPaidCores'])*dt; a[1]+=float(R[i].get('cloud.assignedCores') or 0)*dt
    out.append('%s: '%pol+' '.join('%s paid %.2f asg %.2f'%(k,v[0],v[1]) for k,v in sorted(acc.items())))
print(sc,' | '.join(out))
