#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
# place_mixes.py - the placer on the example mixes and random job files: every
# placement, then HAGD under each composition and --fairness 2, as Markdown
# tables (makespan, max slowdown, unfairness, Jain, duplicated tasks).
# Usage: tools/thbench/place_mixes.py [THCTL] [RANDOM.jobs ...] (random
# files from thbench placegen are placed on 256 nodes).
import json, os, subprocess, sys
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
args = sys.argv[1:]
TH = args.pop(0) if args and not args[0].endswith('.jobs') else os.path.join(TOP, 'build/bin/thctl')
EX = os.path.join(TOP, 'tools/thctl/examples/place') + '/'
def place(args):
    r = subprocess.run([TH, 'place', '-j'] + args, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return None
    return json.loads(r.stdout)
mixes = [('big job beside small ones', [EX + 'big-beside-small.jobs']),
         ('heterogeneous ALUs', ['-m', EX + 'hetero-alus.model', EX + 'mixed-tenants.jobs']),
         ('high latency (50 us)', ['-m', EX + 'wide-latency.model', EX + 'mixed-tenants.jobs']),
         ('duplication: a shared sum, 50 us hops', ['-m', EX + 'high-latency.model', EX + 'shared-sum.jobs'])]
for extra in args:
    mixes.append(('random: ' + extra.split('/')[-1], ['-n', '256', extra]))
for name, args in mixes:
    print(f'\n**{name}** (`thctl place -j {" ".join(os.path.relpath(a, TOP) if a.startswith(TOP) else a for a in args)}`)\n')
    print('| placement | makespan µs | max slowdown | unfairness | Jain | dup |')
    print('|---|---|---|---|---|---|')
    d = place(args)
    for p in d['placements']:
        if p.get('failed'):
            print(f"| {p['placement']} | failed | | | | |"); continue
        src = p.get('composition', '-')
        lab = p['placement'] + (f" ({src})" if src not in ('-', 'merged') else '')
        print(f"| {lab} | {p['makespan_us']:.1f} | {p['max_slowdown']:.2f} | {p['unfairness']:.3f} | {p['jain']:.3f} | {p.get('duplicated', 0)} |")
    for comp in ['merged', 'sequential', 'level', 'alternating', 'fair', 'weighted', 'laxity', 'best']:
        d = place(['-a', 'hagd', '-c', comp, '--no-floor'] + args)
        p = d['placements'][0]
        print(f"| hagd -c {comp} | {p['makespan_us']:.1f} | {p['max_slowdown']:.2f} | {p['unfairness']:.3f} | {p['jain']:.3f} | {p.get('duplicated', 0)} |")
    d = place(['-a', 'hagd', '--fairness', '2'] + args)
    p = d['placements'][0]
    print(f"| hagd --fairness 2 ({p.get('composition')}{'' if p.get('fairness_met', True) else ', unmet'}) | {p['makespan_us']:.1f} | {p['max_slowdown']:.2f} | {p['unfairness']:.3f} | {p['jain']:.3f} | {p.get('duplicated', 0)} |")
