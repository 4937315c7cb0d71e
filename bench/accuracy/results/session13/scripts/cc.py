import json, sys, glob, collections, math
def load(split): return [json.loads(l) for f in sorted(glob.glob(f'cc-{split}-*.jsonl')) for l in open(f) if l.strip()]
cal, test = load('calib'), load('test')
def kind(r): return 'noul-crit' if r['type']=='noul' and r['crit'] else r['type']
def z(r, lam, which):
    l0 = r['lp0'][which] if which in (0,1) else [ (a+b)/2 for a,b in zip(*r['lp0']) ]
    return [a - lam*b for a,b in zip(r['lp'], l0)]
def acc(r, lam, which):
    l = z(r, lam, which); m=max(l); w=[k for k,x in enumerate(l) if abs(x-m)<1e-12]
    return 1/len(w) if r['gold'] in w else 0
lams=[i/10 for i in range(0,11)]
print('calib', len(cal), 'test', len(test))
for which,name in [(0,'N/A'),(1,'empty'),(2,'both')]:
    print('content-free state:', name)
    for k in ['noul','noul-crit','choice','score']:
        c=[r for r in cal if kind(r)==k]; t=[r for r in test if kind(r)==k and not r['source'].startswith('rated/')]
        res=[(sum(acc(r,l,which) for r in c)/len(c), l) for l in lams]
        best=max(res); b=[x for x in res if x[1]==0][0]
        ta=lambda l: sum(acc(r,l,which) for r in t)/len(t)
        print(f'  {k:10s} n {len(c)}/{len(t)} calib {b[0]:.4f} -> {best[0]:.4f} (lambda {best[1]}); test {ta(0):.4f} -> {ta(best[1]):.4f}', ' '.join(f'{x[1]}:{x[0]:.3f}' for x in res[::2]))
