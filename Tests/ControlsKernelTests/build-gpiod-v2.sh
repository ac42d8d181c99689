#!/usr/bin/env bash
# Builds the libgpiod v2 variant of the controls: libgpiod 2.x's C library from PyPI's `gpiod` source distribution
# (it vendors include/gpiod.h and lib/*.c) into a static library, then `fermata-controls-bench` against it in its own
# scratch path. Debian 12 ships only libgpiod 1.6 (v1 API); this lets CI build and run the v2 path of the C shim too.
#
#   Tests/ControlsKernelTests/build-gpiod-v2.sh [SWIFT-BUILD-FLAGS...]   # e.g. -c release
#
# It prints the built binary's path on its last line.
# Re-runs reuse the download, the library and the build. Environment: FERMATA_GPIOD_V2_DIR (default
# <repo>/.build-gpiod-v2, git-ignored), GPIOD_PY_VERSION (default 2.4.0, which vendors libgpiod 2.2.2).
# It takes no build lock itself: run it the way you run `swift build` (under the shared flock on the dev machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${FERMATA_GPIOD_V2_DIR:-$root/.build-gpiod-v2}
version=${GPIOD_PY_VERSION:-2.4.0}
prefix=$dir/prefix
mkdir -p "$dir"

if [ ! -f "$prefix/.built-$version" ]; then
    sdist=$dir/gpiod-$version.tar.gz
    if [ ! -f "$sdist" ]; then
        if ! python3 -m pip --version > /dev/null 2>&1; then
            echo "build-gpiod-v2: ERROR: pip is missing (apt-get install python3-pip)" >&2
            exit 1
        fi
        echo "build-gpiod-v2: downloading gpiod==$version (sdist) from PyPI" >&2
        python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$dir" "gpiod==$version" >&2
    fi
    src=$dir/src
    rm -rf "$src" "$prefix"
    mkdir -p "$src" "$prefix/include" "$prefix/lib/pkgconfig"
    tar -xzf "$sdist" -C "$src" --strip-components=1
    lib_version=$(cat "$src/libgpiod-version.txt")
    echo "build-gpiod-v2: compiling libgpiod $lib_version" >&2
    objects=()
    for c in "$src"/lib/*.c; do
        o=$src/$(basename "$c" .c).o
        cc -std=gnu11 -O2 -fPIC -D_GNU_SOURCE "-DGPIOD_VERSION_STR=\"$lib_version\"" -I"$src/include" -I"$src/lib" \
            -c "$c" -o "$o"
        objects+=("$o")
    done
    ar rcs "$prefix/lib/libgpiod.a" "${objects[@]}"
    cp "$src/include/gpiod.h" "$prefix/include/"
    cat > "$prefix/lib/pkgconfig/libgpiod.pc" <<EOF
prefix=$prefix
Name: libgpiod
Description: libgpiod $lib_version (v2 API), static, from PyPI gpiod $version
Version: $lib_version
Cflags: -I\${prefix}/include
Libs: -L\${prefix}/lib -lgpiod
EOF
    touch "$prefix/.built-$version"
fi

echo "build-gpiod-v2: building fermata-controls-bench against $prefix" >&2
cd "$root"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig swift build --scratch-path "$dir/swiftpm" --product fermata-controls-bench \
    -Xcc "-I$prefix/include" -Xlinker "-L$prefix/lib" "$@" >&2
binary=$(swift build --scratch-path "$dir/swiftpm" --show-bin-path "$@")/fermata-controls-bench
if ldd "$binary" | grep -q 'libgpiod\.so'; then
    echo "build-gpiod-v2: ERROR: $binary links the system libgpiod (v1), not the static v2 library" >&2
    exit 1
fi
echo "$binary"
