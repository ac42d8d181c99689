#!/usr/bin/env python3
"""The CI digest: every issue a `swift test` log recorded, each with the lines after it that are not other tests'
progress (swift-testing prints an expectation's message over several lines, interleaved with the parallel run's
progress), then the failed tests by name. Reads the log named on the command line; prints to stdout."""
import re
import sys

PROGRESS = re.compile(r"^\s*(✔|◇|↳ Testing|Test Suite|Test Case|\[\d+/\d+\]|ALSA lib |\d{4}-\d\d-\d\dT[\d:]+[+-]\d{4} (info|notice|debug|trace) )")
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
failed = []
shown = 0
for index, line in enumerate(lines):
    if "recorded an issue" in line or re.search(r"^error: |\.swift:\d+:\d+: error: |Fatal error|swift-runtime: |💣", line):
        shown += 1
        if shown > 60:
            print("... (more issues; the log has them)")
            break
        print(f"--- line {index + 1}: {line[:400]}")
        kept = 0
        for follow in lines[index + 1:index + 200]:
            if "recorded an issue" in follow:
                break
            if PROGRESS.match(follow):
                continue
            print("    " + follow[:400])
            kept += 1
            if kept >= 40:
                break
    match = re.search(r"✘ Test (\S+?)\(", line)
    if match and "recorded an issue" not in line and match.group(1) not in failed:
        failed.append(match.group(1))
print("failed tests: " + (", ".join(failed) if failed else "(none named)"))
