#!/usr/bin/env python3
# Throwaway prototype: exact counts (pgoprof raw, exact-counts) + a clang
# -fpseudo-probe-for-profiling binary -> LLVM probe-based text profile.
import struct, sys, collections

def uleb(b, p):
    r = s = 0
    while True:
        c = b[p]; p += 1
        r |= (c & 0x7f) << s; s += 7
        if c < 0x80: return r, p
def sleb(b, p):
    r = s = 0
    while True:
        c = b[p]; p += 1
        r |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            if c & 0x40: r -= 1 << s
            return r, p

class Elf:
    def __init__(self, path):
        d = self.d = open(path, 'rb').read()
        (e_phoff, e_shoff) = struct.unpack_from('<QQ', d, 0x20)
        e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx = struct.unpack_from('<HHHHH', d, 0x36)
        self.loads = []
        for i in range(e_phnum):
            p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, _ = struct.unpack_from('<IIQQQQQQ', d, e_phoff + i * e_phentsize)
            if p_type == 1: self.loads.append((p_offset, p_vaddr, p_filesz))
        sh = [struct.unpack_from('<IIQQQQIIQQ', d, e_shoff + i * e_shentsize) for i in range(e_shnum)]
        stro = sh[e_shstrndx][4]
        self.secs = {}
        for s in sh:
            n = d[stro + s[0]: d.index(b'\0', stro + s[0])].decode()
            self.secs[n] = s
        # symbols
        self.syms = {}
        for symsec, strsec in (('.symtab', '.strtab'), ('.dynsym', '.dynstr')):
            if symsec not in self.secs: continue
            s = self.secs[symsec]; st = self.secs[strsec][4]
            for off in range(s[4], s[4] + s[5], 24):
                name, info, other, shndx, value, size = struct.unpack_from('<IBBHQQ', d, off)
                if (info & 0xf) == 2 and value:
                    self.syms.setdefault(value, d[st + name: d.index(b'\0', st + name)].decode())
        n = self.secs['.note.gnu.build-id']
        namesz, descsz, typ = struct.unpack_from('<III', d, n[4])
        self.buildid = d[n[4] + 12 + ((namesz + 3) & ~3): n[4] + 12 + ((namesz + 3) & ~3) + descsz]
    def sec(self, n):
        s = self.secs[n]; return self.d[s[4]: s[4] + s[5]]
    def off2va(self, off):
        for po, pv, fs in self.loads:
            if po <= off < po + fs: return off - po + pv
        return None

class Node:
    def __init__(self, guid, site, parent):
        self.guid, self.site, self.parent = guid, site, parent
        self.children = {}
        self.probes = []   # (index, kind, attr, addr)

def parse_probes(elf):
    desc = {}
    b = elf.sec('.pseudo_probe_desc'); p = 0
    while p < len(b):
        guid, h = struct.unpack_from('<QQ', b, p); p += 16
        n, p = uleb(b, p)
        desc[guid] = (h, b[p:p + n].decode()); p += n
    b = elf.sec('.pseudo_probe'); p = 0
    tops = []
    byaddr = collections.defaultdict(list)
    last = [0]
    def body(parent, site):
        nonlocal p
        guid, = struct.unpack_from('<Q', b, p); p += 8
        node = Node(guid, site, parent)
        np_, p = uleb(b, p)
        nin, p = uleb(b, p)
        for _ in range(np_):
            idx, p = uleb(b, p)
            v = b[p]; p += 1
            kind, attr = v & 0xf, (v >> 4) & 7
            if v & 0x80:
                dlt, p = sleb(b, p); addr = last[0] + dlt
            else:
                addr, = struct.unpack_from('<Q', b, p); p += 8
            last[0] = addr
            if attr & 2: continue   # sentinel
            node.probes.append((idx, kind, attr, addr))
            byaddr[addr].append((node, idx, kind))
        for _ in range(nin):
            s, p = uleb(b, p)
            c = body(node, s)
            node.children.setdefault((c.guid, s), []).append(c)
        return node
    import hashlib
    starts = {}
    for va, nm in elf.syms.items():
        for cand in (nm, nm.split('.llvm.')[0], nm.split('.part.')[0]):
            g = struct.unpack('<Q', hashlib.md5(cand.encode()).digest()[:8])[0]
            starts.setdefault(g, va)
    while p < len(b):
        g, = struct.unpack_from('<Q', b, p)
        last[0] = starts.get(g, 0)
        if g not in starts: print('no start for', desc.get(g), file=sys.stderr)
        tops.append(body(None, None))
    return desc, tops, byaddr

def read_raw(path, buildid):
    d = open(path, 'rb').read()
    assert d[:8] == b'PGORAW\0\0'
    n, = struct.unpack_from('<I', d, 12); p = 16
    objs = []; ranges = {}; branches = {}
    for _ in range(n):
        t, fl, sz = struct.unpack_from('<IIQ', d, p); p += 16; q = p; p += sz
        if t == 3:
            bl, = struct.unpack_from('<I', d, q); objs.append(d[q + 4: q + 4 + bl])
        elif t == 4:
            o, m = struct.unpack_from('<IQ', d, q); q += 12
            ranges.setdefault(o, []).extend(struct.unpack_from('<QQQ', d, q + 24 * i) for i in range(m))
        elif t == 5:
            o, m = struct.unpack_from('<IQ', d, q); q += 12
            branches.setdefault(o, []).extend(struct.unpack_from('<QIIQQ', d, q + 32 * i) for i in range(m))
    oi = [i for i, b in enumerate(objs) if b[:len(buildid)] == buildid[:len(b)]]
    assert len(oi) == 1, 'binary not in profile'
    oi = oi[0]
    return oi, ranges.get(oi, []), branches.get(oi, [])

def main():
    raw, binp, out = sys.argv[1:4]
    opts = sys.argv[4:]
    elf = Elf(binp)
    desc, tops, byaddr = parse_probes(elf)
    oi, rng, br = read_raw(raw, elf.buildid)
    cnt = collections.Counter()
    for b_, e_, c in rng:
        assert b_ == e_
        cnt[elf.off2va(b_)] += c
    # profile tree: key path of (guid) / (site, guid)
    class FS:
        def __init__(s, name, h):
            s.name, s.hash = name, h; s.body = collections.Counter(); s.calls = collections.defaultdict(collections.Counter)
            s.inl = {}; s.total = 0; s.head = 0
    prof = {}
    def fs_for(node):
        chain = []
        while node is not None: chain.append(node); node = node.parent
        chain.reverse()
        top = chain[0]
        h, nm = desc[top.guid]
        f = prof.get(nm)
        if f is None: f = prof[nm] = FS(nm, h)
        path = [f]
        for n in chain[1:]:
            h, nm = desc[n.guid]
            k = (n.site, nm)
            g = path[-1].inl.get(k)
            if g is None: g = path[-1].inl[k] = FS(nm, h)
            path.append(g)
        return path
    cut = 0.0
    for o in opts:
        if o.startswith('--cut='): cut = float(o[6:])
    thr = cut * sum(cnt.values())
    for addr, lst in byaddr.items():
        c = cnt.get(addr, 0)
        if c == 0 or c < thr: continue
        for node, idx, kind in lst:
            path = fs_for(node)
            path[-1].body[idx] += c
            for f in path: f.total += c
            if idx == 1 and node.parent is None: path[-1].head += c
    ncall = 0
    for frm, to_obj, _, to, c in br:
        if to_obj != oi or c < thr: continue
        fa, ta = elf.off2va(frm), elf.off2va(to)
        name = elf.syms.get(ta)
        if name is None: continue
        for node, idx, kind in byaddr.get(fa, []):
            if kind in (1, 2):
                fs_for(node)[-1].calls[idx][name] += c; ncall += c
                break
    def emit(o, f, ind):
        for idx in sorted(set(f.body) | set(f.calls)):
            s = ' ' * ind + '%d: %d' % (idx, f.body.get(idx, 0))
            for n, c in sorted(f.calls.get(idx, {}).items(), key=lambda x: -x[1]):
                s += ' %s:%d' % (n, c)
            o.write(s + '\n')
        for (site, nm), g in sorted(f.inl.items()):
            if g.total == 0: continue
            o.write(' ' * ind + '%d: %s:%d\n' % (site, nm, g.total))
            emit(o, g, ind + 1)
        o.write(' ' * ind + '!CFGChecksum: %d\n' % f.hash)
    with open(out, 'w') as o:
        for nm, f in sorted(prof.items(), key=lambda x: -x[1].total):
            if f.total == 0: continue
            o.write('%s:%d:%d\n' % (nm, f.total, f.head))
            emit(o, f, 1)
    print('functions %d, probes at %d addresses, calls %d' % (len(prof), len(byaddr), ncall), file=sys.stderr)

main()
