#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""man-check: the manual pages document what the programs accept.

  iommu-accountctl.8     every command `iommu-accountctl --help` lists (a .SS
                         section each), every long option of ctl/main.c, every
                         JSON key the commands print; each command's own
                         --help lists the options its section heads, and its
                         examples use only those
  iommu-accountd.8       every long option of daemon/main.c
  iommu-accountd.conf.5  every [section] and key daemon/config.c accepts

Prints what is missing; exits 1 if anything is."""
import re
import subprocess
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
man = f"{root}/Documentation/man"
us = f"{root}/userspace"
missing = []


def text(path):
    with open(path) as f:
        return f.read()


def words(page):
    # roff escapes: \- is a minus sign; \fB etc. change fonts
    t = page.replace("\\-", "-")
    return re.sub(r"\\f[BIRP]", "", t)


ctl = words(text(f"{man}/iommu-accountctl.8"))
helptext = subprocess.run([f"{us}/iommu-accountctl", "--help"], capture_output=True,
                          text=True, check=True).stdout
cmds = re.findall(r"^  ([a-z][a-z-]*) ", helptext, re.M)
if len(cmds) < 10:
    sys.exit(f"man-check: only {len(cmds)} commands in --help?")
for c in cmds:
    if not re.search(rf"^\.SS {c}\b", ctl, re.M):
        missing.append(f"iommu-accountctl.8: command {c}")
for c in cmds:
    r = subprocess.run([f"{us}/iommu-accountctl", c, "--help"], capture_output=True, text=True)
    out = r.stdout
    if r.returncode != 0 or not out.startswith("usage: iommu-accountctl "):
        missing.append(f"iommu-accountctl {c} --help: exit {r.returncode}, {out[:40]!r}")
        continue
    heads = " ".join(re.findall(rf"^\.SS ({c}\b.*)$", ctl, re.M))
    opts = set(re.findall(r"^  --([a-z-]+)", out, re.M))
    if opts != set(re.findall(r"--([a-z][a-z-]*)", heads)):
        missing.append(f"iommu-accountctl {c} --help: options {sorted(opts)}, the page's "
                       f"heading {heads!r}")
    ex = out.split("\nexamples:\n", 1)
    lines = re.findall(r"^  (iommu-accountctl .*)$", ex[1], re.M) if len(ex) > 1 else []
    if not lines:
        missing.append(f"iommu-accountctl {c} --help: no example")
    for line in lines:
        w = line.split()
        i = 1 + (w[1] in ("-j", "--json"))
        used = set(re.findall(r"(?:^| )--([a-z-]+)", line))
        if w[i] != c or not used <= opts:
            missing.append(f"iommu-accountctl {c} --help: example {line!r}")
src = "".join(text(f"{us}/ctl/{f}") for f in
              subprocess.run(["ls", f"{us}/ctl"], capture_output=True, text=True).stdout.split()
              if f.endswith(".c"))
for o in re.findall(r'\{ "([a-z-]+)", (?:no|required)_argument', text(f"{us}/ctl/main.c")):
    if f"--{o}" not in ctl:
        missing.append(f"iommu-accountctl.8: option --{o}")
keys = set(re.findall(r'(?:ia_json_\w+|json_num_or_null)\([^,]+, "([a-z_]+)"', src))
keys |= set(re.findall(r'\\"([a-z_]+)\\":', src))
keys |= {"pid", "uid", "comm"}  # ia_json_owner
for k in sorted(keys):
    if not re.search(rf"\b{k}\b", ctl):
        missing.append(f"iommu-accountctl.8: JSON key {k}")

d8 = words(text(f"{man}/iommu-accountd.8"))
for o in re.findall(r'\{ "([a-z-]+)", (?:no|required)_argument', text(f"{us}/daemon/main.c")):
    if f"--{o}" not in d8:
        missing.append(f"iommu-accountd.8: option --{o}")

d5 = words(text(f"{man}/iommu-accountd.conf.5"))
conf = text(f"{us}/daemon/config.c")
for s in re.findall(r'strcmp\(section, "([a-z]+)"\)', conf):
    if f"[{s}]" not in d5:
        missing.append(f"iommu-accountd.conf.5: section [{s}]")
for k in set(re.findall(r'strcmp\(name, "([a-z_]+)"\)', conf)):
    if not re.search(rf"^\.BR {k} ", d5, re.M):
        missing.append(f"iommu-accountd.conf.5: key {k}")

# The version: one place (VERSION); the pages say the same.
version = text(f"{root}/VERSION").strip()
for page in ("iommu-accountctl.8", "iommu-accountd.8", "iommu-accountd.conf.5"):
    th = re.search(r'^\.TH .*"iommu-account ([^"]+)"', text(f"{man}/{page}"), re.M)
    if not th or th.group(1) != version:
        missing.append(f"{page}: .TH says {th.group(1) if th else '?'}, VERSION says {version}")

if missing:
    print("\n".join(missing))
    sys.exit(1)
print(f"man-check: {len(cmds)} commands, {len(keys)} JSON keys, options and configuration keys documented")
