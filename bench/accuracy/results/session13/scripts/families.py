import json,sys
NEW={'rated'}
for name in sys.argv[1:]:
    m=json.load(open(f'/work/main/.cache/{name}/reader-1.13.0.json'))
    fam=m['heldOutFloat16BySource']
    xs=[v['all'] for f,v in fam.items() if f not in NEW]
    n=sum(x['n'] for x in xs); s=sum(x['n']*x['accuracy'] for x in xs)
    new=' '.join(f"{f} {fam[f]['all']['accuracy']:.3f} (score {fam[f].get('score',{}).get('accuracy')})" for f in sorted(NEW) if f in fam)
    print(f"{name}: all but new {s/n:.4f} (n {n}); {new}; similarity {fam['similarity']['all']['accuracy']:.3f}; pairs {fam['pairs']['all']['accuracy']:.3f}; topics {fam['topics']['all']['accuracy']:.3f}; corpus {fam['corpus']['all']['accuracy']:.3f}; whole {m['heldOutFloat16']['all']['accuracy']:.4f}")
