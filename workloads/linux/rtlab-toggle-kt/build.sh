#!/usr/bin/env bash
# Builds rtlab-toggle-kt with konanc/cinterop called directly (no Gradle):
#   build.sh TARGET OUT     TARGET linux_arm64 | linux_x64, OUT the executable to write
# Needs deps/setup.d/kotlin-native.sh's cache ($RTLAB_KOTLIN_HOME). When setup assembled
# the dependencies from Debian packages (offline), konanc runs in airplane mode against
# them; else it fetches its own into the same KONAN_DATA_DIR.
# A konanc build takes about a minute: the result is cached by a hash of the sources,
# the target and the compiler version (OUT is copied from the cache when it matches).
set -euo pipefail
target=${1:?target: linux_arm64 or linux_x64}
out=${2:?output path}
here=$(cd "$(dirname "$0")" && pwd)
home=${RTLAB_KOTLIN_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rtlab/kotlin-native}
KT_VERSION=2.4.20
dist=$home/kotlin-native-prebuilt-linux-x86_64-$KT_VERSION
stamp=$home/setup-done-$KT_VERSION
if [ ! -s "$stamp" ] || [ ! -x "$dist/bin/konanc" ]; then
    echo "rtlab-toggle-kt: Kotlin/Native $KT_VERSION not set up (deps/setup.d/kotlin-native.sh)" >&2
    exit 1
fi
key=$( (echo "$KT_VERSION $target $(cat "$stamp")"; cat "$here/build.sh" "$here"/src/*) | sha256sum | cut -c1-16)
cached=$home/builds/$key/rtlab-toggle-kt.kexe
if [ ! -s "$cached" ]; then
    export KONAN_DATA_DIR=$home/konan-data
    airplane=()
    clang_lib=${LD_LIBRARY_PATH:-}
    if [ "$(cut -d' ' -f1 "$stamp")" = offline ]; then
        airplane=(-Xoverride-konan-properties=airplaneMode=true)
        llvm_dep=$(cut -d' ' -f2 "$stamp")
        # cinterop's libclangstubs.so loads Debian's libclang from here (konanc needs none:
        # its LLVM is linked in, and is kept apart from Debian's)
        clang_lib=$KONAN_DATA_DIR/dependencies/$llvm_dep/lib${clang_lib:+:$clang_lib}
    fi
    # a work directory of this build's own: the cache is per user, shared by every tree
    # and build at once (xdist workers, worktrees), and a shared one was removed mid-build
    mkdir -p "$home/builds"
    work=$(mktemp -d "$home/builds/$key.tmp.XXXXXX")
    # Debian's OpenJDK 17 now and then dies in the JIT under load (a HotSpot "Internal
    # Error", abort): that attempt is run again, up to three in all. Each runs in $work,
    # where a crash leaves its hs_err file, not in the caller's tree.
    export JAVA_OPTS="${JAVA_OPTS:+$JAVA_OPTS }-XX:ErrorFile=$work/hs_err_%p.log"
    jvm() {
        local try
        for try in 1 2 3; do
            (cd "$work" && "$@") >"$work/log" 2>&1 && return 0
            grep -q "fatal error has been detected by the Java Runtime" "$work/log" || break
            echo "rtlab-toggle-kt: the JVM crashed in $(basename "$1") (try $try of 3)" >&2
        done
        cat "$work/log" >&2
        exit 1
    }
    # cinterop takes the override as two arguments, konanc as one
    LD_LIBRARY_PATH=$clang_lib jvm "$dist/bin/cinterop" -target "$target" -def "$here/src/gpio.def" \
        -o "$work/gpio" ${airplane:+-Xoverride-konan-properties airplaneMode=true}
    jvm "$dist/bin/konanc" -target "$target" -opt -l "$work/gpio.klib" "${airplane[@]}" \
        -o "$work/rtlab-toggle-kt" "$here"/src/*.kt
    mkdir -p "$home/builds/$key"
    mv -f "$work/rtlab-toggle-kt.kexe" "$cached"  # a rename: a reader sees all or nothing
    rm -rf "$work"
fi
mkdir -p "$(dirname "$out")"
cp "$cached" "$out.tmp"
mv "$out.tmp" "$out"
