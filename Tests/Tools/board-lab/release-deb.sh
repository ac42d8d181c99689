#!/usr/bin/env bash
# The arm64 Debian package of a released version, built once from its git tag and kept in the board lab's cache, so
# that the `upgrade` scenario always starts from what owners run: `board-lab.sh upgrade --release v1.0.0 --deb NEW.deb`
# installs this package first, then NEW over it.
#
#   Tests/Tools/board-lab/release-deb.sh TAG [--release trixie]      prints the package's path
#
# The tag is checked out in a worktree of its own (the checkout here is not touched), built with
# deploy/build-for-board.sh and packed with deploy/make-deb.sh as that release did it. Needs what those need (sudo for
# the SDK's first build: docs/install.md, "Cross-building").
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,10p' "$0"; exit 2; }
tag=$1 release=trixie
[ "${2:-}" = "--release" ] && release=$3
project=$(cd "$(dirname "$0")/../../.." && pwd)
cache=${BOARD_LAB_CACHE:-/var/tmp/fermata-board-lab}/releases/$tag-$release
if deb=$(ls "$cache"/fermata_*_arm64.deb 2>/dev/null | head -1) && [ -n "$deb" ]; then echo "$deb"; exit 0; fi
git -C "$project" rev-parse -q --verify "refs/tags/$tag" >/dev/null || { echo "release-deb: no tag $tag" >&2; exit 2; }
work=$(mktemp -d)
trap 'git -C "$project" worktree remove --force "$work/src" 2>/dev/null || true; rm -rf "$work"' EXIT
git -C "$project" worktree add --detach "$work/src" "$tag" >&2
( cd "$work/src" && nice -n 19 deploy/build-for-board.sh --swift-sdk "fermata-$release-arm64" --release "$release" \
      --arch arm64 >&2 )
artifact=$(ls "$work/src"/dist/fermata-*-"$release"-arm64.tar.gz | head -1)
( cd "$work/src" && deploy/make-deb.sh --from-artifact "$artifact" >&2 )
mkdir -p "$cache"
cp "$work/src"/dist/fermata_*_arm64.deb "$cache/"
ls "$cache"/fermata_*_arm64.deb | head -1
