# chart.py: scatter(rows, base, path) writes an SVG chart of evalset.py's runs:
# each run's max pending against its cloud CPU-hours relative to mck8s's on the
# same run, for the variant (filled), the product before the adoption
# (baseline-all.json's meridian, hollow) and mck8s (grey, at 0 %), with the
# goal's corner (at or below 1 % pending, at most mck8s's cost) shaded.
W,H,L,R,T,B=720,440,70,20,40,60
X0,X1,Y0,Y1=-30,30,0,8  # CPU-h vs mck8s in %, max pending in %
def sx(x): return L+(min(max(x,X0),X1)-X0)/(X1-X0)*(W-L-R)
def sy(y): return H-B-(min(max(y,Y0),Y1)-Y0)/(Y1-Y0)*(H-T-B)
def scatter(rows, base, path, label):
    out=[f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect x="{sx(X0)}" y="{sy(1)}" width="{sx(0)-sx(X0)}" height="{sy(0)-sy(1)}" fill="#dff0d8"/>']
    for x in range(X0,X1+1,10):
        out.append(f'<line x1="{sx(x)}" y1="{T}" x2="{sx(x)}" y2="{H-B}" stroke="#eee"/><text x="{sx(x)}" y="{H-B+16}" text-anchor="middle">{x:+d} %</text>')
    for y in range(Y0,Y1+1):
        out.append(f'<line x1="{L}" y1="{sy(y)}" x2="{W-R}" y2="{sy(y)}" stroke="#eee"/><text x="{L-6}" y="{sy(y)+4}" text-anchor="end">{y} %</text>')
    out.append(f'<text x="{(L+W-R)/2}" y="{H-18}" text-anchor="middle">cloud CPU-hours against mck8s on the same run (clipped to ±30 %)</text>')
    out.append(f'<text x="16" y="{(T+H-B)/2}" transform="rotate(-90 16 {(T+H-B)/2})" text-anchor="middle">max pending (clipped to 8 %)</text>')
    out.append(f'<text x="{L}" y="22" font-size="14">{label}: {len(rows)} runs, VI-B (circles) and heavy-tail (squares)</text>')
    color={'variant':'#1f77b4','before':'#1f77b4','mck8s':'#999'}
    def mark(kind,sc,x,y):
        c=color[kind]; fill='none' if kind=='before' else c; op='0.45' if kind=='mck8s' else '0.8'
        if sc=='vi-b': return f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4" fill="{fill}" stroke="{c}" fill-opacity="{op}"/>'
        return f'<rect x="{sx(x)-4:.1f}" y="{sy(y)-4:.1f}" width="8" height="8" fill="{fill}" stroke="{c}" fill-opacity="{op}"/>'
    for sc,s,p,c,_,_ in rows:
        b=base[f'{sc}{s}']; mp,mc=b['mck8s']
        out.append(mark('mck8s',sc,0,100*mp))
        if 'meridian' in b: out.append(mark('before',sc,100*(b['meridian'][1]/mc-1),100*b['meridian'][0]))
        out.append(mark('variant',sc,100*(c/mc-1),100*p))
    lx=W-R-260
    for i,(kind,text) in enumerate([('variant',label),('before','Meridian before the adoption (3bbf697)'),('mck8s','mck8s (reactive), at 0 %')]):
        y=T+14+i*16; c=color[kind]; fill='none' if kind=='before' else c
        out.append(f'<circle cx="{lx}" cy="{y-4}" r="4" fill="{fill}" stroke="{c}"/><text x="{lx+10}" y="{y}">{text}</text>')
    out.append(f'<rect x="{lx-4}" y="{T+14+3*16-12}" width="8" height="8" fill="#dff0d8"/><text x="{lx+10}" y="{T+14+3*16}">the goal: at most 1 %, no dearer than mck8s</text>')
    out.append('</svg>')
    open(path,'w').write('\n'.join(out)+'\n')
