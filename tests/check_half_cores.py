#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks tests/half_cores.cmake against what ctest lists: every test it names exists and runs with that share
# (PROCESSORS), and every other test has its label's default. A renamed test would otherwise lose its share
# without a word.
# Usage: check_half_cores.py HALF_CORES_CMAKE CTEST BUILD_DIR
import json
import re
import subprocess
import sys

table_path, ctest, build = sys.argv[1:4]
table = {}
for name, slots in re.findall(r"\[\[(.*)=(\d+)\]\]", open(table_path, encoding="utf-8").read()):
    table[name] = int(slots)
if not table:
    sys.exit(f"{table_path}: no entries found")

listing = json.loads(subprocess.run([ctest, "--show-only=json-v1"], cwd=build, check=True,
                                    capture_output=True, text=True).stdout)
processors = {}
labels = {}
for test in listing["tests"]:
    properties = {p["name"]: p["value"] for p in test.get("properties", [])}
    processors[test["name"]] = int(properties.get("PROCESSORS", 1))
    labels[test["name"]] = properties.get("LABELS", [])

problems = []
for name, slots in sorted(table.items()):
    if name not in processors:
        problems.append(f"{name}: named in half_cores.cmake, but ctest lists no such test")
    elif processors[name] != slots:
        problems.append(f"{name}: runs with {processors[name]} slots, half_cores.cmake gives {slots}")
gtests = [n for n in processors if "." in n and not n.startswith(("python.", "package.", "tests.", "fuzz_"))]
for name in gtests:
    if name in table:
        continue
    expected = 1 if "unit" in labels[name] else 4
    if processors[name] != expected:
        problems.append(f"{name}: runs with {processors[name]} slots, its label's default is {expected}")
for problem in problems:
    print(problem)
print(f"{len(table)} tests with their own share, {len(gtests) - len(table)} with their label's, "
      f"{len(problems)} problems")
sys.exit(1 if problems else 0)
