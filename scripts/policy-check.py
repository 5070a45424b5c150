#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""policy-check: the netlink policies of kmod/nl.c against the YNL spec.

For every operation of the spec, the request attributes of its do and dump
must be exactly the attributes of the policy the module attaches to that
command, with the NLA type the spec's type implies; an operation without
request attributes must have no policy. Exit 1 with the differences.
"""
import re
import sys
import yaml

NLA = {"u8": "NLA_U8", "u16": "NLA_U16", "u32": "NLA_U32", "u64": "NLA_U64",
       "s32": "NLA_S32", "s64": "NLA_S64", "string": "NLA_NUL_STRING",
       "flag": "NLA_FLAG", "nest": "NLA_NESTED"}


def cname(s):
    return s.upper().replace("-", "_")


def main(spec_path, src_path):
    spec = yaml.safe_load(open(spec_path))
    src = open(src_path).read()
    prefix = "IOMMU_ACCOUNT"
    sets = {a["name"]: {x["name"]: x for x in a["attributes"]} for a in spec["attribute-sets"]}
    policies = {}
    for name, body in re.findall(r"nla_policy (\w+)\[[^\]]*\] = \{(.*?)\n\};", src, re.S):
        # { .type = NLA_X } or NLA_POLICY_MAX(NLA_X, ...) and its kin
        policies[name] = {a: t1 or t2 for a, t1, t2 in re.findall(
            r"\[(\w+)\] = (?:\{ \.type = (\w+)|NLA_POLICY_\w+\((\w+))", body)}
    ops = {}
    table = re.search(r"genl_ops \w+\[\] = \{(.*?)\n\};", src, re.S).group(1)
    for body in table.split("\n\t{")[1:]:
        cmd = re.search(r"\.cmd = (\w+)", body).group(1)
        pol = re.search(r"\.policy = (\w+)", body)
        ops[cmd] = pol.group(1) if pol else None
    bad = []
    for op in spec["operations"]["list"]:
        if "event" in op:
            continue
        cmd = f"{prefix}_CMD_{cname(op['name'])}"
        if cmd not in ops:
            bad.append(f"{op['name']}: no genl op {cmd} in {src_path}")
            continue
        want = {}
        for kind in ("do", "dump"):
            req = (op.get(kind) or {}).get("request") or {}
            for attr in req.get("attributes", []):
                a = sets[op["attribute-set"]][attr]
                want[f"{prefix}_A_{cname(op['attribute-set'])}_{cname(attr)}"] = NLA[a["type"]]
        have = policies.get(ops[cmd], {}) if ops[cmd] else {}
        if ops[cmd] and ops[cmd] not in policies:
            bad.append(f"{op['name']}: policy {ops[cmd]} not found")
        if want != have:
            bad.append(f"{op['name']}: spec requests {want or 'nothing'}, "
                       f"module policy {ops[cmd]} accepts {have or 'nothing'}")
    for b in bad:
        print("policy-check: " + b, file=sys.stderr)
    if not bad:
        print(f"policy-check: the policies of {len(ops)} operations match the spec")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
