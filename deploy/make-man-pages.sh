#!/usr/bin/env bash
# Writes the manual pages into docs/man/, where the package installs them from: fermata.1 and fermatad.8, made by
# swift-argument-parser's generate-manual plugin from the programs' own help (every subcommand and option, as
# `--help` says them), and fermata.toml.5 from the table of configuration keys (`fermata config reference --man`).
# Dated with the release (FermataVersion.date), so the same source makes the same pages.
#
#   deploy/make-man-pages.sh
#
# Run after changing a command's options or help, and when cutting a release (docs/development.md, "Releasing").
# ManPageTests fails when a committed page lacks a subcommand or an option the programs have, or when fermata.toml.5
# differs from what the program prints.
set -euo pipefail
cd "$(dirname "$0")/.."
date=$(sed -n 's/.*static let date = "\([0-9-]*\)".*/\1/p' Sources/FermataCore/FermataVersion.swift)
[ -n "$date" ] || { echo "make-man-pages: no FermataVersion.date" >&2; exit 1; }
swift package plugin generate-manual --configuration debug --date "$date" \
    --authors "Fermata developers" >&2
out=.build/plugins/GenerateManual/outputs
page=$(find "$out" -name fermata.1 | head -1)
[ -n "$page" ] || { echo "make-man-pages: the plugin wrote no fermata.1 under $out" >&2; exit 1; }
cp "$page" docs/man/fermata.1
# fermatad is a system daemon: section 8. The plugin's tool is run again for it.
tool=$(find .build -type f -name 'generate-manual*' -perm -u+x | head -1)
[ -n "$tool" ] || { echo "make-man-pages: no generate-manual tool under .build" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tool" .build/debug/fermatad --section 8 --date "$date" --authors "Fermata developers" --output-directory "$work"
cp "$work/fermatad.8" docs/man/fermatad.8
.build/debug/fermata config reference --man > docs/man/fermata.toml.5
ls -l docs/man >&2
