# SPDX-License-Identifier: GPL-2.0
"""The kernel's BTF, read from the packages: a vmlinuz's vmlinux (its
zstd, xz or gzip payload) and a module's split BTF (.ko, .ko.xz, .ko.zst),
enough to render a function's prototype as C ("int", ["struct user_struct *",
"long unsigned int"]) for scripts/hook-check. The format is the kernel's
(include/uapi/linux/btf.h, Documentation/bpf/btf.rst)."""
import lzma, struct, subprocess, zlib

def elf_section(data, name):
    if data[:4] != b'\x7fELF':
        raise ValueError('not an ELF file')
    e_shoff, = struct.unpack_from('<Q', data, 0x28)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    def sh(i):
        return struct.unpack_from('<IIQQQQIIQQ', data, e_shoff + i * e_shentsize)
    stro = sh(e_shstrndx)[4]
    for i in range(e_shnum):
        s = sh(i)
        n = data[stro + s[0]:data.index(b'\0', stro + s[0])].decode()
        if n == name:
            return data[s[4]:s[4] + s[5]]
    return None

def vmlinux_of(vmlinuz):
    d = open(vmlinuz, 'rb').read()
    for magic, how in ((b'\x28\xb5\x2f\xfd', 'zstd'), (b'\xfd7zXZ\x00', 'xz'), (b'\x1f\x8b\x08', 'gzip')):
        i = d.find(magic)
        if i < 0:
            continue
        if how == 'zstd':
            out = subprocess.run(['zstd', '-dcq'], input=d[i:], capture_output=True).stdout
        elif how == 'gzip':
            out = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(d[i:])
        else:
            dec = lzma.LZMADecompressor()
            out = dec.decompress(d[i:])
        if out[:4] == b'\x7fELF':
            return out
    raise ValueError('%s: no zstd or xz payload holding an ELF vmlinux' % vmlinuz)

def module_elf(path):
    d = open(path, 'rb').read()
    if path.endswith('.xz'):
        return lzma.decompress(d)
    if path.endswith('.zst'):
        return subprocess.run(['zstd', '-dcq'], input=d, capture_output=True).stdout
    return d

KIND = {1: 'int', 2: 'ptr', 3: 'array', 4: 'struct', 5: 'union', 6: 'enum', 7: 'fwd', 8: 'typedef',
        9: 'volatile', 10: 'const', 11: 'restrict', 12: 'func', 13: 'func_proto', 14: 'var',
        15: 'datasec', 16: 'float', 17: 'decl_tag', 18: 'type_tag', 19: 'enum64'}

class BTF:
    def __init__(self, raw, base=None):
        magic, ver, flags, hlen, toff, tlen, soff, slen = struct.unpack_from('<HBBIIIII', raw, 0)
        if magic != 0xeb9f:
            raise ValueError('not BTF')
        self.base = base
        self.strs = raw[hlen + soff:hlen + soff + slen]
        self.str_base = len(base.strtab()) if base else 0
        self.first = base.count() + 1 if base else 1
        self.types = []
        t = raw[hlen + toff:hlen + toff + tlen]
        o = 0
        while o < len(t):
            name_off, info, st = struct.unpack_from('<III', t, o)
            o += 12
            kind = (info >> 24) & 0x1f
            vlen = info & 0xffff
            extra = None
            if kind == 1 or kind == 14 or kind == 17:
                o += 4
            elif kind == 3:
                o += 12
            elif kind in (4, 5):
                o += 12 * vlen
            elif kind == 6:
                o += 8 * vlen
            elif kind == 13:
                extra = [struct.unpack_from('<II', t, o + 8 * k) for k in range(vlen)]
                o += 8 * vlen
            elif kind == 15:
                o += 12 * vlen
            elif kind == 19:
                o += 12 * vlen
            self.types.append((name_off, kind, vlen, st, extra, (info >> 31) & 1))
        self.by_name = {}
        for i, ty in enumerate(self.types):
            if ty[1] == 12:
                self.by_name.setdefault(self.name(ty[0]), self.first + i)

    def strtab(self):
        return (self.base.strtab() if self.base else b'') + self.strs

    def count(self):
        return (self.base.count() if self.base else 0) + len(self.types)

    def name(self, off):
        if self.base and off < self.str_base:
            return self.base.name(off)
        s = self.strs
        off -= self.str_base
        return s[off:s.index(b'\0', off)].decode()

    def get(self, tid):
        if self.base and tid < self.first:
            return self.base, self.base.get(tid)[1]
        return self, self.types[tid - self.first]

    def render(self, tid, depth=0):
        if tid == 0:
            return 'void'
        b, (name_off, kind, vlen, st, extra, kflag) = self.get(tid)
        n = b.name(name_off)
        if kind in (1, 8, 16):
            return n
        if kind == 2:
            return self.render(st, depth + 1) + ' *'
        if kind == 10:
            return 'const ' + self.render(st, depth + 1)
        if kind in (9, 11, 18):
            return self.render(st, depth + 1)
        if kind == 4 or (kind == 7 and not kflag):
            return 'struct ' + n
        if kind == 5 or (kind == 7 and kflag):
            return 'union ' + n
        if kind in (6, 19):
            return 'enum ' + n
        if kind == 13:
            return 'fn'
        if kind == 3:
            return 'array'
        return KIND.get(kind, '?')

    def func(self, name):
        """(return type, [param types]) of function @name, or None."""
        tid = self.by_name.get(name)
        if tid is None:
            return None
        b, (name_off, kind, vlen, st, extra, kflag) = self.get(tid)
        pb, proto = self.get(st)
        params = proto[4] or []
        return self.render(proto[3]), [self.render(p[1]) for p in params]


def doctor(raw, sym, other):
    """@raw with function @sym given @other's prototype (a test's kernel whose
    prototype differs from the contract)."""
    magic, ver, flags, hlen, toff, tlen, soff, slen = struct.unpack_from('<HBBIIIII', raw, 0)
    b = BTF(raw)
    out = bytearray(raw)
    o = hlen + toff
    protos = {}
    for i, ty in enumerate(b.types):
        if ty[1] == 12:
            protos.setdefault(b.name(ty[0]), (o, ty[3]))
        o += 12 + {1: 4, 14: 4, 17: 4, 3: 12, 4: 12 * ty[2], 5: 12 * ty[2], 6: 8 * ty[2],
                   13: 8 * ty[2], 15: 12 * ty[2], 19: 12 * ty[2]}.get(ty[1], 0)
    struct.pack_into('<I', out, protos[sym][0] + 8, protos[other][1])
    return bytes(out)
