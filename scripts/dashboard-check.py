#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""dashboard-check DASHBOARD METRICS RULES...: the Grafana dashboard parses
and every iommu_account_* metric it (and each Prometheus rules file) names
is one the exporter emits: a "# TYPE" line of METRICS, a /metrics document
written by iommu-accountd's code. Every alerting rule has a summary, a
description and a runbook_url whose page (beside the rules file) has a
section of that anchor."""
import json
import os
import re
import sys

import yaml

emitted = set()
with open(sys.argv[2]) as f:
    for line in f:
        if line.startswith("# TYPE "):
            emitted.add(line.split()[2])
if not emitted:
    sys.exit(f"{sys.argv[2]}: no metrics")

bad = []
with open(sys.argv[1]) as f:
    dash = json.load(f)
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
for v in dash.get("templating", {}).get("list", []):
    if isinstance(v.get("query"), str):
        exprs.append(v["query"])
def anchors(page):
    """GitHub's anchors of a Markdown page's headings."""
    with open(page) as f:
        return {re.sub(r"[^a-z0-9 _-]", "", h.strip().lower()).replace(" ", "-")
                for h in re.findall(r"^#+ (.*)$", f.read(), re.M)}


for path in sys.argv[3:]:
    with open(path) as f:
        rules = yaml.safe_load(f)
    exprs += [r["expr"] for g in rules["groups"] for r in g["rules"]]
    for r in (r for g in rules["groups"] for r in g["rules"] if "alert" in r):
        ann = r.get("annotations", {})
        for key in ("summary", "description", "runbook_url"):
            if not ann.get(key):
                bad.append(f"{r['alert']}: no {key}")
        url = ann.get("runbook_url", "")
        page, _, frag = url.rpartition("#")
        local = os.path.join(os.path.dirname(path), os.path.basename(page))
        if url and (not os.path.exists(local) or frag not in anchors(local)):
            bad.append(f"{r['alert']}: runbook_url {url}: no section #{frag} in {local}")
for e in exprs:
    for name in re.findall(r"\biommu_account_[a-z_]+", e):
        if name not in emitted:
            bad.append(f"{name} (in: {e.strip()[:70]})")
if bad:
    sys.exit("not emitted by the exporter, or a rule without its annotations:\n  " +
             "\n  ".join(bad))
print(f"dashboard-check: {len(exprs)} expressions, every metric is emitted ({len(emitted)} known)")
