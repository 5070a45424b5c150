# SPDX-License-Identifier: GPL-2.0
"""The kernel's BTF, taken out of its packages raw, as /sys/kernel/btf has
it, for libia's reader (userspace/lib/btf.c, contract.c), which
scripts/hook-check runs on it: a vmlinuz's vmlinux (its zstd, xz or gzip
payload) and a module's split BTF (.ko, .ko.xz, .ko.zst). The format is the
kernel's (include/uapi/linux/btf.h, Documentation/bpf/btf.rst)."""
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

# The bytes after a type's 12: fixed (int, array, var, decl_tag), or per member.
FIXED = {1: 4, 3: 12, 14: 4, 17: 4}
PER_MEMBER = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}

def doctor(raw, sym, other):
    """@raw (a vmlinux's BTF) with function @sym given @other's prototype: a
    kernel whose prototype differs from the contract, for the check's own test."""
    hlen, toff, tlen, soff = struct.unpack_from('<IIII', raw, 4)
    strs = raw[hlen + soff:]
    funcs = {}
    o = hlen + toff
    while o < hlen + toff + tlen:
        name_off, info, proto = struct.unpack_from('<III', raw, o)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        if kind == 12:
            funcs.setdefault(strs[name_off:strs.index(b'\0', name_off)].decode(), (o, proto))
        o += 12 + FIXED.get(kind, 0) + PER_MEMBER.get(kind, 0) * vlen
    out = bytearray(raw)
    struct.pack_into('<I', out, funcs[sym][0] + 8, funcs[other][1])
    return bytes(out)
