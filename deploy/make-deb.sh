#!/usr/bin/env bash
# Makes Fermata's Debian package from built programs: dist/fermata_<version>_<arch>.deb (dpkg-deb, no debhelper).
#
#   deploy/make-deb.sh --bin DIR | --from-artifact FILE  [--arch amd64|arm64] [--version V] [--release R]
#                      [--sysroot DIR] [--config FILE] [--maintainer "NAME <EMAIL>"] [--out DIR] [--bundle-swift-runtime]
#
# --bin DIR        fermata, as deploy/build-for-board.sh builds it (--static-swift-stdlib): the one program, the
#                  daemon when called as fermatad (a fermatad beside it, a link or a program, is not used)
# --from-artifact FILE   the tarball deploy/build-for-board.sh makes: its bin/, and its release and architecture
# --arch ARCH      amd64 or arm64 (default: read from the programs' ELF header; given, it must match)
# --version V      the package version (default: from `git describe --tags --match 'v[0-9]*'`, v1.2-3-gabc →
#                  1.2+git3.abc; with no tag 0.0~git<UTC commit time>.<commit>; +dirty for a modified checkout)
# --release R      the Debian release the programs were built for (default: this machine's for its own architecture,
#                  else trixie): picks the SDK sysroot below and the fallback package names
# --sysroot DIR    compute the dependencies against this root (a Debian tree of the target release and architecture)
#                  instead of this machine's installed packages. Default for a foreign architecture: the sysroot that
#                  deploy/make-swift-sdk.sh makes (`--print-paths`); when it is absent the dependencies come from a
#                  fixed soname table, unversioned except libc6, and the script says so
# --config FILE    ship FILE as /etc/fermata/fermata.toml (default: `fermatad --print-default-config` with the music
#                  directory set, as deploy/install.sh writes it; a foreign fermatad runs under qemu-user with the
#                  sysroot)
# --maintainer M   the Maintainer field (default: $DEBFULLNAME <$DEBEMAIL>, else the author of the git HEAD)
# --out DIR        where the package goes (default: dist/ in the project)
# --bundle-swift-runtime  for programs linked against a Swift toolchain's shared runtime (a debug build, no
#                  --static-swift-stdlib): copy the runtime libraries they need into /usr/lib/fermata and point their
#                  RUNPATH there (patchelf). Without it such programs are refused: a package needs the static runtime.
#
# What the package holds: /usr/bin/fermata (stripped) and /usr/bin/fermatad, a symbolic link to it (one program for
# both roles: the Swift and Foundation runtime once), /etc/fermata/fermata.toml (a conffile), the units
# deploy/fermata.service and deploy/fermata-poweroff.{path,service} in /usr/lib/systemd/system (their /usr/local paths
# rewritten to /usr), deploy/99-fermata-gpio.rules and 99-fermata-input.rules in /usr/lib/udev/rules.d, boards/*.toml in /usr/share/fermata/boards (boards/inputs/*.toml in …/boards/inputs)
# (fermatad's `board = "auto"` looks there), manual pages made from --help, and the README, asound.conf example,
# copyright and changelog in /usr/share/doc/fermata. The maintainer scripts are deploy/debian/{postinst,prerm,postrm}:
# the fermata system user (groups audio, gpio, input; gpio and input made when missing), the units enabled and started
# (not in a chroot), `apt remove` keeps /var/lib/fermata, `apt purge` removes it, the user and /etc/fermata.
#
# Needs dpkg-dev (dpkg-shlibdeps, dpkg-gencontrol); for arm64 also binutils-aarch64-linux-gnu (objdump, strip) and,
# to print the default configuration, qemu-user-static. Runs as any user (dpkg-deb --root-owner-group).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(dirname "$here")
bin="" artifact="" arch="" version="" release="" sysroot="" config="" maintainer="" out="$project/dist" bundle=0

die() { echo "make-deb.sh: $*" >&2; exit 2; }
note() { echo "make-deb: $*" >&2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=${2%/}; shift 2 ;;
        --from-artifact) artifact=$2; shift 2 ;;
        --arch) arch=$2; shift 2 ;;
        --version) version=$2; shift 2 ;;
        --release) release=$2; shift 2 ;;
        --sysroot) sysroot=${2%/}; shift 2 ;;
        --config) config=$2; shift 2 ;;
        --maintainer) maintainer=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --bundle-swift-runtime) bundle=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$artifact" ]; then
    # The artifact says what it was built for (TARGET: release, architecture, git describe of the build).
    mkdir -p "$work/artifact"
    tar -xzf "$artifact" -C "$work/artifact"
    top=$(find "$work/artifact" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    [ -n "$top" ] && [ -f "$top/TARGET" ] || die "$artifact is not a build-for-board.sh artifact (no TARGET)"
    read -r built_release built_arch built_version < "$top/TARGET"
    [ -z "$release" ] || [ "$release" = "$built_release" ] || die "--release $release, but $artifact is for $built_release"
    release=$built_release bin=$top/bin arch=${arch:-$built_arch}
    note "artifact $(basename "$artifact"): built from $built_version for $built_release/$built_arch"
fi
[ -n "$bin" ] || die "--bin DIR or --from-artifact FILE is needed (the folder with fermata)"
[ -x "$bin/fermata" ] && [ ! -L "$bin/fermata" ] || die "no executable $bin/fermata"
for tool in dpkg-deb dpkg-shlibdeps dpkg-gencontrol readelf gzip md5sum; do
    command -v "$tool" >/dev/null || die "needs $tool (apt-get install dpkg-dev binutils)"
done

# 1. Architecture, release, version, maintainer.
elf_arch() {
    case "$(readelf -h "$1" 2>/dev/null | sed -n 's/ *Machine: *//p')" in
        *X86-64*) echo amd64 ;; *AArch64*) echo arm64 ;; *) echo unknown ;;
    esac
}
found_arch=$(elf_arch "$bin/fermata")
case "$found_arch" in amd64|arm64) ;; *) die "$bin/fermata is neither an amd64 nor an arm64 program" ;; esac
[ -z "$arch" ] || [ "$arch" = "$found_arch" ] || die "--arch $arch, but $bin/fermata is an $found_arch program"
arch=$found_arch
host_arch=$(dpkg --print-architecture)
case "$arch" in arm64) gnu_type=aarch64-linux-gnu ;; amd64) gnu_type=x86_64-linux-gnu ;; esac
host_release=$( . /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
if [ -z "$release" ]; then
    if [ "$arch" = "$host_arch" ] && [ -z "$sysroot" ]; then release=$host_release; else release=trixie; fi
fi
case "$release" in bookworm|trixie) ;; *) note "release $release: neither bookworm nor trixie (not tried)" ;; esac
# This machine's installed packages answer for the programs only when it is their release and architecture.
foreign=0
[ "$arch" = "$host_arch" ] && [ "$release" = "$host_release" ] || foreign=1

if [ -z "$version" ]; then
    if [ -n "$artifact" ] && [ "$built_version" != "$(git -C "$project" describe --tags --always --dirty 2>/dev/null)" ]; then
        die "$artifact was built from $built_version, this checkout is $(git -C "$project" describe --tags --always \
            --dirty 2>/dev/null || echo 'not a git checkout'): pass --version"
    fi
    if git -C "$project" rev-parse --git-dir >/dev/null 2>&1; then
        dirty=""
        git -C "$project" diff --quiet HEAD -- 2>/dev/null || dirty="+dirty"
        if described=$(git -C "$project" describe --tags --match 'v[0-9]*' 2>/dev/null); then
            # v1.2 → 1.2; v1.2-3-gabc1234 → 1.2+git3.abc1234
            version=$(echo "${described#v}" | sed -E 's/-([0-9]+)-g([0-9a-f]+)$/+git\1.\2/')$dirty
        else
            version="0.0~git$(TZ=UTC git -C "$project" log -1 --format=%cd --date=format-local:%Y%m%d%H%M).$(
                git -C "$project" rev-parse --short=7 HEAD)$dirty"
        fi
    else
        die "not a git checkout: pass --version"
    fi
fi
version=${version#v}
echo "$version" | grep -Eq '^([0-9]+:)?[0-9][A-Za-z0-9.+~]*(-[A-Za-z0-9.+~]+)?$' \
    || die "version $version is not a Debian version (digits first; letters, digits, . + ~)"
file_version=${version#*:}
[ -n "$maintainer" ] || { [ -z "${DEBEMAIL:-}" ] || maintainer="${DEBFULLNAME:-Fermata maintainers} <$DEBEMAIL>"; }
[ -n "$maintainer" ] || maintainer=$(git -C "$project" log -1 --format='%an <%ae>' 2>/dev/null || true)
[ -n "$maintainer" ] || die "no maintainer: pass --maintainer \"NAME <EMAIL>\""
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$project" log -1 --format=%ct 2>/dev/null || date +%s)}

# The sysroot the dependencies are computed against (and a foreign fermatad runs in).
if [ -z "$sysroot" ] && [ $foreign -eq 1 ]; then
    sdk_sysroot=$("$here/make-swift-sdk.sh" --arch "$arch" --release "$release" --print-paths 2>/dev/null \
        | sed -n 's/^sysroot=//p' || true)
    if [ -n "$sdk_sysroot" ] && [ -d "$sdk_sysroot/usr/lib/$gnu_type" ]; then
        sysroot=$sdk_sysroot
    else
        if [ -n "$sdk_sysroot" ]; then
            note "WARNING: no sysroot for $release/$arch: $sdk_sysroot is absent (deploy/make-swift-sdk.sh --arch $arch" \
                "--release $release makes it; or pass --sysroot DIR)"
        else
            note "WARNING: no sysroot for $release/$arch: deploy/make-swift-sdk.sh makes none for it (pass --sysroot DIR)"
        fi
    fi
fi
[ -z "$sysroot" ] || [ -d "$sysroot/usr/lib/$gnu_type" ] || die "--sysroot $sysroot has no usr/lib/$gnu_type"
if [ "$arch" != "$host_arch" ]; then
    command -v "$gnu_type-objdump" >/dev/null || die "needs $gnu_type-objdump: apt-get install binutils-$gnu_type"
fi

# run PROGRAM ARGS...: runs one of the programs as built: natively; for another release of this architecture with
# the sysroot's dynamic loader and libraries; for another architecture under qemu-user with the sysroot.
run() {
    if [ "$arch" = "$host_arch" ]; then
        if [ -z "$sysroot" ]; then "$@"; return; fi
        local loader
        loader=$(ls "$sysroot/usr/lib/$gnu_type"/ld-linux*.so.* 2>/dev/null | head -1)
        [ -n "$loader" ] || return 127
        "$loader" --library-path "$sysroot/usr/lib/$gnu_type" "$@"
        return
    fi
    local qemu=""
    [ "$arch" != arm64 ] || qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
    [ -n "$qemu" ] && [ -n "$sysroot" ] || return 127
    "$qemu" -L "$sysroot" "$@"
}

umask 022
pkg=$work/fermata
# DEBIAN/ first: dpkg-shlibdeps finds the package's root (for its RUNPATH and own libraries) by it.
mkdir -p "$pkg/DEBIAN"
note "fermata $version for $arch ($release), from $bin"

# 2. The programs: the Swift runtime must be inside them (or, with --bundle-swift-runtime, beside them).
mkdir -p "$pkg/usr/bin"
install -m 0755 "$bin/fermata" "$pkg/usr/bin/"
ln -s fermata "$pkg/usr/bin/fermatad"  # the daemon: fermata called as fermatad
# The unpackaged program under both names, to run here (the packaged one may look for its libraries in /usr/lib).
mkdir -p "$work/programs"
ln -s "$(realpath "$bin/fermata")" "$work/programs/fermata"
ln -s "$(realpath "$bin/fermata")" "$work/programs/fermatad"
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
# (Every `| grep -q` here reads a variable: with pipefail, grep quitting early would fail the writer with SIGPIPE.)
program_libraries=$(needed "$bin/fermata")
if grep -qx 'libswiftCore.so' <<<"$program_libraries"; then
    runpath=$(readelf -d "$bin/fermata" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' | head -1)
    if [ $bundle -eq 0 ]; then
        die "$bin/fermata links the Swift runtime as shared libraries (libswiftCore.so, RUNPATH ${runpath:-none})," \
            "which no Debian package provides: build with --static-swift-stdlib (deploy/build-for-board.sh does)," \
            "or pass --bundle-swift-runtime to carry the toolchain's libraries in /usr/lib/fermata (test packages)"
    fi
    command -v patchelf >/dev/null || die "--bundle-swift-runtime needs patchelf (apt-get install patchelf)"
    runtime=""
    for dir in ${runpath//:/ }; do
        [ ! -f "$dir/libswiftCore.so" ] || { runtime=$dir; break; }
    done
    [ -n "$runtime" ] || die "libswiftCore.so is in none of the RUNPATH folders (${runpath:-none})"
    mkdir -p "$pkg/usr/lib/fermata"
    # The closure of the programs' NEEDED libraries that live in the runtime folder.
    queue=("$bin/fermata")
    while [ ${#queue[@]} -gt 0 ]; do
        object=${queue[0]}; queue=("${queue[@]:1}")
        for soname in $(needed "$object"); do
            if [ -f "$runtime/$soname" ] && [ ! -e "$pkg/usr/lib/fermata/$soname" ]; then
                install -m 0644 "$runtime/$soname" "$pkg/usr/lib/fermata/"
                queue+=("$runtime/$soname")
            fi
        done
    done
    patchelf --set-rpath /usr/lib/fermata "$pkg/usr/bin/fermata"
    for library in "$pkg"/usr/lib/fermata/*.so; do patchelf --set-rpath '$ORIGIN' "$library"; done
    note "WARNING: the Swift runtime is shared: $(ls "$pkg/usr/lib/fermata" | wc -l) libraries from $runtime" \
        "($(du -sh "$pkg/usr/lib/fermata" | cut -f1)) go to /usr/lib/fermata (--bundle-swift-runtime)"
fi
# Stripped as dh_strip does (--strip-unneeded, no .comment/.note), with the target's strip.
strip_tool=""
for candidate in "$gnu_type-strip" $([ "$arch" != "$host_arch" ] || echo strip) llvm-strip; do
    if command -v "$candidate" >/dev/null; then strip_tool=$candidate; break; fi
done
for object in "$pkg"/usr/bin/* $(ls "$pkg"/usr/lib/fermata/*.so 2>/dev/null); do
    [ ! -L "$object" ] || continue  # fermatad: the link to fermata
    sections=$(readelf -S "$object")
    if grep -q '\.symtab\|\.debug_info' <<<"$sections"; then
        if [ -n "$strip_tool" ]; then
            "$strip_tool" --strip-unneeded --remove-section=.comment --remove-section=.note "$object"
        else
            note "WARNING: no strip for $arch ($gnu_type-strip): ${object#"$pkg"} keeps its symbols"
        fi
    fi
done

# 3. Configuration: the daemon's own documented defaults, with the music directory set as install.sh sets it. The
#    board stays `auto`: fermatad picks its profile from /usr/share/fermata/boards at every start.
mkdir -p "$pkg/etc/fermata"
if [ -n "$config" ]; then
    install -m 0644 "$config" "$pkg/etc/fermata/fermata.toml"
else
    defaults=$(run "$work/programs/fermatad" --print-default-config) \
        || die "cannot run fermata as fermatad --print-default-config (a program for another release needs its sysroot," \
            "for another architecture also qemu-user-static): pass --config FILE"
    grep -q '^\[paths\]' <<<"$defaults" || die "fermatad --print-default-config printed no [paths] section"
    sed -e 's|^#music = .*|music = "/srv/music"|' <<<"$defaults" > "$pkg/etc/fermata/fermata.toml"
fi

# 4. Units, udev rule, board profiles, documentation: the same files deploy/install.sh installs.
mkdir -p "$pkg/usr/lib/systemd/system" "$pkg/usr/lib/udev/rules.d" "$pkg/usr/share/fermata/boards" \
    "$pkg/usr/share/doc/fermata/examples"
for unit in fermata.service fermata-poweroff.path fermata-poweroff.service; do
    { echo "# Packaged by deploy/make-deb.sh from deploy/$unit, with /usr/local/ paths changed to /usr/."
      sed -e 's|/usr/local/bin/|/usr/bin/|g' \
          -e 's|^Documentation=.*|Documentation=man:fermatad(8) file:/usr/share/doc/fermata/README.md.gz|' \
          "$here/$unit" \
          | awk -v documented="$(grep -c '^Documentation=' "$here/$unit" || true)" \
              '/^\[Unit\]/ && !documented { print; print "Documentation=man:fermatad(8)"; next } { print }'
    } > "$pkg/usr/lib/systemd/system/$unit"
    if grep -q '^[^#]*/usr/local' "$pkg/usr/lib/systemd/system/$unit"; then
        die "deploy/$unit still names /usr/local after the rewrite"
    fi
done
install -m 0644 "$here/99-fermata-gpio.rules" "$pkg/usr/lib/udev/rules.d/"
install -m 0644 "$here/99-fermata-input.rules" "$pkg/usr/lib/udev/rules.d/"
install -m 0644 "$project"/boards/*.toml "$pkg/usr/share/fermata/boards/"
mkdir -p "$pkg/usr/share/fermata/boards/inputs"
install -m 0644 "$project"/boards/inputs/*.toml "$pkg/usr/share/fermata/boards/inputs/"
gzip -9n < "$project/README.md" > "$pkg/usr/share/doc/fermata/README.md.gz"
gzip -9n < "$project/boards/README.md" > "$pkg/usr/share/doc/fermata/boards.md.gz"
install -m 0644 "$here/asound.conf" "$pkg/usr/share/doc/fermata/examples/asound.conf"
install -m 0644 "$here/debian/copyright" "$pkg/usr/share/doc/fermata/copyright"

# Manual pages: docs/man, generated from the programs' own help and the table of configuration keys
# (deploy/make-man-pages.sh; ManPageTests and ConfigReferenceTests keep them current).
for page in "$project"/docs/man/*.[158]; do
    section=${page##*.}
    mkdir -p "$pkg/usr/share/man/man$section"
    gzip -9n < "$page" > "$pkg/usr/share/man/man$section/$(basename "$page").gz"
done
# The manuals (docs/*.md) beside the README.
for doc in "$project"/docs/*.md; do gzip -9n < "$doc" > "$pkg/usr/share/doc/fermata/$(basename "$doc").gz"; done

# 5. Changelog: one entry for this build (a native version: changelog.gz; with a Debian revision: changelog.Debian.gz).
mkdir -p "$work/debian"
commit=$(git -C "$project" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
cat > "$work/debian/changelog" <<EOF
fermata ($version) $release; urgency=medium

  * Built by deploy/make-deb.sh from commit $commit.

 -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
EOF
case "$version" in *-*) changelog_name=changelog.Debian.gz ;; *) changelog_name=changelog.gz ;; esac
gzip -9n < "$work/debian/changelog" > "$pkg/usr/share/doc/fermata/$changelog_name"

# 6. Dependencies: dpkg-shlibdeps, against this machine's packages or the sysroot's.
cp "$here/debian/control" "$work/debian/control"
objects=("$pkg/usr/bin/fermata")
for library in "$pkg"/usr/lib/fermata/*.so; do [ ! -e "$library" ] || objects+=("$library"); done
export DEB_HOST_ARCH=$arch
if [ -n "$sysroot" ]; then
    # The sysroot was unpacked, not installed: no dpkg database to ask which package holds a library. A view of it
    # that is a "package build tree" (DEBIAN/symbols and DEBIAN/shlibs: every package's files concatenated) lets
    # dpkg-shlibdeps read the symbols files as it would from installed packages.
    view=$work/sysroot-view
    mkdir -p "$view/DEBIAN" "$work/control-files"
    for entry in "$sysroot"/*; do ln -s "$entry" "$view/$(basename "$entry")"; done
    debs=("$sysroot"/var/cache/apt/archives/*.deb)
    [ -e "${debs[0]}" ] || die "$sysroot/var/cache/apt/archives holds no .deb: cannot read its symbols files"
    for deb in "${debs[@]}"; do
        rm -rf "$work/control-files"/*
        dpkg-deb -e "$deb" "$work/control-files"
        [ ! -f "$work/control-files/symbols" ] || cat "$work/control-files/symbols" >> "$view/DEBIAN/symbols"
        [ ! -f "$work/control-files/shlibs" ] || cat "$work/control-files/shlibs" >> "$view/DEBIAN/shlibs"
    done
    note "dependencies: dpkg-shlibdeps against $sysroot (${#debs[@]} packages' symbols and shlibs files)"
    (cd "$work" && dpkg-shlibdeps -Tdebian/substvars -S"$view" "${objects[@]}")
elif [ $foreign -eq 0 ]; then
    note "dependencies: dpkg-shlibdeps against this machine's packages ($( . /etc/os-release && echo "$PRETTY_NAME"))"
    # (--bundle-swift-runtime: the bundled libraries have no version in their sonames, which dpkg-shlibdeps notes.)
    (cd "$work" && dpkg-shlibdeps -Tdebian/substvars "${objects[@]}" 2>&1 \
        | grep -v "can't extract name and version from library name" >&2 || true)
    [ -s "$work/debian/substvars" ] || die "dpkg-shlibdeps failed (above)"
else
    # No sysroot for another release or architecture: the libraries Fermata links, by soname, without minimum versions (only
    # libc6 gets one, from the newest GLIBC_ symbol version the programs use).
    declare -A package_of=(
        [libFLAC.so.12]=libflac12 [libFLAC.so.14]=libflac14 [libgpiod.so.2]=libgpiod2 [libgpiod.so.3]=libgpiod3
        [libvorbisfile.so.3]=libvorbisfile3 [libvorbis.so.0]=libvorbis0a [libogg.so.0]=libogg0 [libsoxr.so.0]=libsoxr0
        [libsqlite3.so.0]=libsqlite3-0 [libSoundTouch.so.1]=libsoundtouch1 [libespeak-ng.so.1]=libespeak-ng1
        [libstdc++.so.6]=libstdc++6 [libgcc_s.so.1]=libgcc-s1 [libz.so.1]=zlib1g
        [libasound.so.2]=$([ "$release" = bookworm ] && echo libasound2 || echo libasound2t64)
    )
    glibc=$(for object in "${objects[@]}"; do readelf -V --wide "$object"; done | grep -o 'GLIBC_[0-9.]*' \
        | sed 's/GLIBC_//' | sort -uV | tail -1)
    depends=("libc6 (>= ${glibc:-2.17})")
    for soname in $(for object in "${objects[@]}"; do needed "$object"; done | sort -u); do
        case "$soname" in
            libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libutil.so.*|ld-linux*) continue ;;
        esac
        [ ! -e "$pkg/usr/lib/fermata/$soname" ] || continue
        [ -n "${package_of[$soname]:-}" ] || die "no sysroot, and $soname is not in the fallback table: pass --sysroot"
        depends+=("${package_of[$soname]}")
    done
    note "WARNING: dependencies NOT computed by dpkg-shlibdeps (no sysroot): from the soname table for $release," \
        "unversioned except libc6: $(IFS=,; echo "${depends[*]}")"
    echo "shlibs:Depends=$(printf '%s\n' "${depends[@]}" | sort -u | paste -sd, | sed 's/,/, /g')" \
        > "$work/debian/substvars"
fi

# 7. Maintainer scripts, conffiles, md5sums, control; then the package.
install -m 0755 "$here/debian/postinst" "$here/debian/prerm" "$here/debian/postrm" "$pkg/DEBIAN/"
install -m 0644 "$here/debian/conffiles" "$pkg/DEBIAN/conffiles"
find "$pkg" -type d -exec chmod 0755 {} +
# md5sums of every file but the conffiles (dpkg keeps theirs), as dh_md5sums writes it.
(cd "$pkg" && find . \( -path ./DEBIAN -o -path ./etc \) -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z \
    | xargs -0 md5sum > DEBIAN/md5sums)
[ "$(find "$pkg/etc" -type f | sed "s|^$pkg||" | sort)" = "$(sort "$pkg/DEBIAN/conffiles")" ] \
    || die "every file under /etc must be listed in deploy/debian/conffiles"
chmod 0644 "$pkg/DEBIAN/md5sums"
(cd "$work" && dpkg-gencontrol -pfermata -v"$version" -cdebian/control -ldebian/changelog -Tdebian/substvars \
    -P"$pkg" -V"fermata:Maintainer=$maintainer" 2>&1 | grep -v 'does not match CC system type' >&2 || true)
[ -s "$pkg/DEBIAN/control" ] || die "dpkg-gencontrol wrote no control file"
mkdir -p "$out"
deb=$out/fermata_${file_version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
note "built $deb ($(du -h "$deb" | cut -f1), installed $(sed -n 's/^Installed-Size: //p' "$pkg/DEBIAN/control") KiB)"
sed -n 's/^Depends: /make-deb: Depends: /p' "$pkg/DEBIAN/control" >&2
echo "$deb"
