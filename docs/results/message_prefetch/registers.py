# usage: python3 registers.py name=kernel_bandwidth ... > registers.md: registers and spill of the batched ChannelKernel (4 rows, 1 step, hoisted) in each binary (cuobjdump, c++filt on PATH)
import subprocess, sys, re
NAMES = {'0': 'pp_up_down', '1': 'ph_transverse', '2': 'ph_magnetic', '3': 'ph_charge'}
def res(path):
    out = subprocess.run(['cuobjdump', '-res-usage', path], capture_output=True, text=True).stdout.split('\n')
    d = {}; name = None
    for line in out:
        m = re.search(r'Function (\S+):', line)
        if m: name = m.group(1); continue
        m = re.search(r'REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)', line)
        if m and name:
            dem = subprocess.run(['c++filt', name], capture_output=True, text=True).stdout.strip()
            k = re.search(r'ParallelFor<ringcomm::gt::detail::ChannelKernel<Kokkos::complex<(\w+)>, Kokkos::complex<(\w+)>, '
                          r'\(ringcomm::gt::Channel\)(\d), false, 4, 1, true, (\w+), (\w+)>', dem)
            if k:
                g = k.groups()
                key = ('float' if g[0] == 'float' else 'mixed' if g[1] == 'float' else 'double', NAMES[g[2]],
                       'frequency warps' if g[3] == 'true' else 'one warp', 'factors apart' if g[4] == 'true' else '')
                d[key] = '%s regs%s' % (m.group(1), ', %s B stack' % m.group(2) if m.group(2) != '0' else '')
            name = None
    return d
cols = [a.split('=', 1) for a in sys.argv[1:]]
tabs = [res(p) for _, p in cols]
print('| G_t / messages | channel | diagonal | pass | ' + ' | '.join(n for n, _ in cols) + ' |')
print('|' + ' --- |' * (4 + len(cols)))
for key in sorted(tabs[0]):
    print('| ' + ' | '.join(key) + ' | ' + ' | '.join(t.get(key, '-') for t in tabs) + ' |')
