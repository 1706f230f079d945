import csv,sys
# usage: phases.py dir scen -> CPU·h by phase for mck8s and meridian
def load(f): return list(csv.DictReader(open(f)))
d,sc=sys.argv[1],sys.argv[2]
A=load(f'{d}/{sc}-mck8s.csv'); B=load(f'{d}/{sc}-meridian.csv')
def integ(rows,t0,t1):
    s=0
    for i in range(len(rows)-1):
        t=float(rows[i]['minute']); t2=float(rows[i+1]['minute'])
        if t>=t0 and t<t1: s+=float(rows[i]['cloudPaidCores'])*(t2-t)/60
    return s
first=lambda rows: next((float(r['minute']) for r in rows if float(r['cloudPaidCores'])>0),90)
ta=first(A); tb=first(B)
peak=max(float(r['minute']) for r in A if float(r['minute'])<=60 and int(r['asked'])==max(int(x['asked']) for x in A if float(x['minute'])<=60))
ph=[('pre-mck8s',0,ta),('rise',ta,60),('60-75',60,75),('75-90',75,91)]
print(sc,'meridian buys %.1f mck8s %.1f'%(tb,ta), '  '.join('%s: %.2f/%.2f'%(n,integ(A,a,b),integ(B,a,b)) for n,a,b in ph), 'total %.2f/%.2f'%(integ(A,0,91),integ(B,0,91)))
