#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ynl-gen-kernel: the module's netlink policies and operation table, from the
YNL spec, as kmod/nl-gen.c and kmod/nl-gen.h.

Why not the kernel's ynl-gen-c --mode kernel: it emits genl_split_ops, which
6.1 (a kernel of the matrix) does not have. This emits genl_ops, which every
kernel since 5.10 takes with a policy per command (newer kernels split them
themselves); a command's policy is then the union of what its do and its
dump accept, as the spec lists them.

From the spec:
  - per operation, a policy of its request attributes (do and dump): the
    NLA type of each attribute's type, NLA_POLICY_MAX(NLA_U32, last entry)
    for an enum, .len for a string's checks: max-len;
  - the handlers: ia_nl_<op>_doit, ia_nl_<op>_dumpit, and a dump's pre and
    post hooks (.start and .done) by the names the spec gives;
  - flags: admin-perm (GENL_ADMIN_PERM) and uns-admin-perm.
What stays hand-written: the handlers, the reply attributes (one fill
function per object, nl_<source>.c), the events and the family itself.

usage: ynl-gen-kernel.py SPEC (source|header) [-o FILE]
"""
import sys
import yaml

NLA = {"u8": "NLA_U8", "u16": "NLA_U16", "u32": "NLA_U32", "u64": "NLA_U64",
       "s8": "NLA_S8", "s16": "NLA_S16", "s32": "NLA_S32", "s64": "NLA_S64",
       "string": "NLA_NUL_STRING", "flag": "NLA_FLAG", "nest": "NLA_NESTED",
       "binary": "NLA_BINARY"}
FLAGS = {"admin-perm": "GENL_ADMIN_PERM", "uns-admin-perm": "GENL_UNS_ADMIN_PERM"}
SPEC_PATH = "Documentation/netlink/specs/iommu_account.yaml"


def c(s):
    return s.replace("-", "_")


def up(s):
    return c(s).upper()


class Gen:
    def __init__(self, spec):
        self.spec = spec
        self.prefix = up(spec["name"])
        self.enums = {d["name"]: d for d in spec.get("definitions", [])}
        self.sets = {}
        for aset in spec["attribute-sets"]:
            attrs, val = {}, 1
            for a in aset["attributes"]:
                val = a.get("value", val)
                attrs[a["name"]] = (val, a)
                val += 1
            self.sets[aset["name"]] = attrs
        self.ops = [o for o in spec["operations"]["list"] if "event" not in o]

    def attr_name(self, aset, attr):
        return f"{self.prefix}_A_{up(aset)}_{up(attr)}"

    def request_attrs(self, op):
        """The union of the do's and the dump's request attributes, by value."""
        names = []
        for mode in ("do", "dump"):
            req = (op.get(mode) or {}).get("request") or {}
            for a in req.get("attributes", []):
                if a not in names:
                    names.append(a)
        aset = self.sets[op["attribute-set"]]
        return sorted(names, key=lambda n: aset[n][0])

    def policy_entry(self, aset, name):
        val, a = self.sets[aset][name]
        t = a["type"]
        if t not in NLA:
            raise SystemExit(f"ynl-gen-kernel: {aset}.{name}: type {t} has no NLA type here")
        checks = a.get("checks") or {}
        if "enum" in a and t.startswith("u"):
            e = self.enums[a["enum"]]
            if e["type"] != "enum":
                raise SystemExit(f"ynl-gen-kernel: {aset}.{name}: flags-typed enums are not handled")
            last = e["entries"][-1]
            last = last if isinstance(last, str) else last["name"]
            return f"NLA_POLICY_MAX({NLA[t]}, {self.prefix}_{up(a['enum'])}_{up(last)})"
        if "max" in checks:
            return f"NLA_POLICY_MAX({NLA[t]}, {checks['max']})"
        if t == "string" and "max-len" in checks:
            return f"{{ .type = {NLA[t]}, .len = {checks['max-len']} }}"
        return f"{{ .type = {NLA[t]} }}"

    def handlers(self, op):
        """(field, C name, kind) of an operation's callbacks."""
        out = []
        n = c(op["name"])
        if "do" in op:
            out.append(("doit", f"ia_nl_{n}_doit", "doit"))
        if "dump" in op:
            d = op["dump"] or {}
            if "pre" in d:
                out.append(("start", c(d["pre"]), "start"))
            out.append(("dumpit", f"ia_nl_{n}_dumpit", "dumpit"))
            if "post" in d:
                out.append(("done", c(d["post"]), "done"))
        for hook in ("pre", "post"):
            if hook in (op.get("do") or {}):
                raise SystemExit(f"ynl-gen-kernel: {op['name']}: do {hook} hooks are not handled")
        return out

    def header_banner(self, what):
        return ("/* Do not edit: generated from " + SPEC_PATH + " */\n"
                "/* by scripts/ynl-gen-kernel.py " + what + " (scripts/ynl-check compares). */\n")

    def header(self):
        proto = {
            "doit": "int {}(struct sk_buff *skb, struct genl_info *info);",
            "dumpit": "int {}(struct sk_buff *skb, struct netlink_callback *cb);",
            "start": "int {}(struct netlink_callback *cb);",
            "done": "int {}(struct netlink_callback *cb);",
        }
        lines = ["/* SPDX-License-Identifier: GPL-2.0 */", self.header_banner("header").rstrip("\n"),
                 "", "#ifndef _IA_NL_GEN_H", "#define _IA_NL_GEN_H", "",
                 "#include <net/genetlink.h>", "",
                 "/* The handlers the operations name (nl.c, nl_<source>.c, nl_util.c). */"]
        seen = set()
        for op in self.ops:
            for _, name, kind in self.handlers(op):
                if name in seen:
                    continue
                seen.add(name)
                lines.append(proto[kind].format(name))
        lines += ["", f"#define IA_NL_N_OPS {len(self.ops)}",
                  "extern const struct genl_ops ia_nl_ops[IA_NL_N_OPS];", "",
                  "#endif", ""]
        return "\n".join(lines)

    def source(self):
        lines = ["// SPDX-License-Identifier: GPL-2.0", self.header_banner("source").rstrip("\n"),
                 "", "#include <net/genetlink.h>", "#include <net/netlink.h>", "",
                 "#include <uapi/linux/iommu_account.h>", "", '#include "nl-gen.h"', ""]
        policy = {}
        for op in self.ops:
            attrs = self.request_attrs(op)
            if not attrs:
                continue
            aset = op["attribute-set"]
            pname = f"ia_{c(op['name'])}_policy"
            policy[op["name"]] = (pname, self.attr_name(aset, attrs[-1]))
            modes = " and ".join(m for m in ("do", "dump") if ((op.get(m) or {}).get("request") or {}).get("attributes"))
            lines.append(f"/* {self.prefix}_CMD_{up(op['name'])}: what its {modes} request accepts */")
            lines.append(f"static const struct nla_policy {pname}[{self.attr_name(aset, attrs[-1])} + 1] = {{")
            for a in attrs:
                line = f"\t[{self.attr_name(aset, a)}] = {self.policy_entry(aset, a)},"
                if len(line.expandtabs(8)) > 100:
                    # checkpatch's limit: the value on a line of its own
                    line = f"\t[{self.attr_name(aset, a)}] =\n\t\t{self.policy_entry(aset, a)},"
                lines.append(line)
            lines += ["};", ""]
        lines.append("const struct genl_ops ia_nl_ops[IA_NL_N_OPS] = {")
        for op in self.ops:
            lines.append("\t{")
            lines.append(f"\t\t.cmd = {self.prefix}_CMD_{up(op['name'])},")
            for field, name, _ in self.handlers(op):
                lines.append(f"\t\t.{field} = {name},")
            if op["name"] in policy:
                pname, last = policy[op["name"]]
                lines.append(f"\t\t.policy = {pname},")
                lines.append(f"\t\t.maxattr = {last},")
            flags = [FLAGS[f] for f in op.get("flags", [])]
            if flags:
                lines.append(f"\t\t.flags = {' | '.join(flags)},")
            lines.append("\t},")
        lines += ["};", ""]
        return "\n".join(lines)


def main(argv):
    if len(argv) < 3 or argv[2] not in ("source", "header"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    gen = Gen(yaml.safe_load(open(argv[1])))
    text = gen.source() if argv[2] == "source" else gen.header()
    if len(argv) == 5 and argv[3] == "-o":
        with open(argv[4], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
