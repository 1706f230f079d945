import csv,sys
# usage: series.py dir scen  -> per minute: asked, pending, paid cores (mck8s vs meridian), cloud assigned
def load(f):
    rows=list(csv.DictReader(open(f)))
    return {round(float(r['minute'])*6)/6: r for r in rows}
d,sc=sys.argv[1],sys.argv[2]
a=load(f'{d}/{sc}-mck8s.csv'); b=load(f'{d}/{sc}-meridian.csv')
step=float(sys.argv[3]) if len(sys.argv)>3 else 2
t=0
print('min  | mck8s asked unpl paid assigned | meridian asked unpl paid assigned')
while t<=90:
    k=min(a,key=lambda x:abs(x-t)); r=a[k]; s=b[k]
    f=lambda r:'%5s %4s %5s %6.1f'%(r['asked'],r['unplaced'],r['cloudPaidCores'],float(r.get('cloud.assignedCores') or 0))
    print('%4.0f | %s | %s'%(t,f(r),f(s)))
    t+=step
