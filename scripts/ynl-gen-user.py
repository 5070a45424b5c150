#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ynl-gen-user.py YNL-GEN-C ARGS...: the kernel's ynl-gen-c.py, run with
`errno` among the names it renames.

ynl-gen-c names a struct member after its attribute, and gives a C keyword a
trailing underscore. glibc's errno is a macro: the failure's and the event's
errno attributes, as members named errno, expand to a function call in every
file that includes <errno.h>. They become errno_, as a keyword would.
Nothing else differs from the kernel's generator."""
import importlib.util
import os
import sys

gen = sys.argv[1]
# Its own lib/ (nlspec), as when it runs as a script.
sys.path.insert(0, os.path.dirname(os.path.abspath(gen)))
spec = importlib.util.spec_from_file_location('ynl_gen_c', gen)
mod = importlib.util.module_from_spec(spec)
sys.argv = [gen] + sys.argv[2:]
spec.loader.exec_module(mod)
mod._C_KW.add('errno')
mod.main()
