#!/usr/bin/env bash
# The GPIO study's Kotlin/Native toggler (workloads/linux/rtlab-toggle-kt) needs the
# Kotlin/Native compiler and its native dependencies (LLVM, a sysroot per target, libffi).
# Everything lands in a cache outside the repository, $RTLAB_KOTLIN_HOME
# (default ${XDG_CACHE_HOME:-~/.cache}/rtlab/kotlin-native); nothing is committed.
#   - The compiler: org.jetbrains.kotlin:kotlin-native-prebuilt:2.4.20:linux-x86_64 from
#     Maven Central, its SHA-1 checked against Maven Central's own .sha1.
#   - Its dependencies: where download.jetbrains.com answers, konanc fetches its own on
#     first use (KONAN_DATA_DIR). Where it does not (a machine that reaches only the
#     package registries), they are assembled from Debian packages in
#     $RTLAB_KOTLIN_HOME/konan-data/dependencies and the build runs konanc in airplane
#     mode (workloads/linux/rtlab-toggle-kt/build.sh): LLVM from clang-22/lld-22 (newer
#     than the compiler's LLVM 21, as its bitcode needs), the linux_arm64 sysroot from the
#     arm64 cross packages, the linux_x64 one from the host, libffi from libffi-dev.
# Idempotent: returns at once when done (the stamp names the version and the mode).
set -euo pipefail
cd "$(dirname "$0")/../.."
KT_VERSION=2.4.20
KT_SHA1=78a5ed0c015349c9e624be6041456f6a578b5556
home=${RTLAB_KOTLIN_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rtlab/kotlin-native}
dist=$home/kotlin-native-prebuilt-linux-x86_64-$KT_VERSION
data=$home/konan-data
stamp=$home/setup-done-$KT_VERSION
[ -s "$stamp" ] && exit 0
mkdir -p "$home/dl" "$data/dependencies"
skip() {
    echo "$1" >"$home/fetch-failed"
    echo "kotlin-native: $1; the Kotlin/Native GPIO toggler is not built" >&2
    exit 0
}
rm -f "$home/fetch-failed"
command -v java >/dev/null 2>&1 || skip "no java (konanc runs on a JVM: apt-get install openjdk-17-jre-headless)"

# 1. The compiler (220 MB), checked, unpacked once.
if [ ! -x "$dist/bin/konanc" ]; then
    tgz=$home/dl/kotlin-native-prebuilt-$KT_VERSION-linux-x86_64.tar.gz
    url=https://repo1.maven.org/maven2/org/jetbrains/kotlin/kotlin-native-prebuilt/$KT_VERSION/$(basename "$tgz")
    if [ ! -s "$tgz" ] || [ "$(sha1sum <"$tgz" | cut -d' ' -f1)" != "$KT_SHA1" ]; then
        echo "kotlin-native: downloading $url (220 MB)"
        curl -fsSL --retry 3 -o "$tgz.part" "$url" || skip "download of $url failed"
        mv "$tgz.part" "$tgz"
    fi
    [ "$(sha1sum <"$tgz" | cut -d' ' -f1)" = "$KT_SHA1" ] || skip "$tgz: SHA-1 is not $KT_SHA1"
    tar -xzf "$tgz" -C "$home"
fi

# 2. Dependencies: JetBrains' own when reachable, else the Debian-assembled folder.
if curl -fsS -o /dev/null -m 10 -I https://download.jetbrains.com/kotlin/native/ 2>/dev/null; then
    echo online >"$stamp"  # konanc downloads into $data on its first build
    exit 0
fi
props=$dist/konan/konan.properties
prop() { sed -n "s/^$1 *= *//p" "$props" | head -1; }
llvm_dep=$(prop llvm.linux_x64.user)
x64_dep=$(prop toolchainDependency.linux_x64)
arm64_dep=$(prop toolchainDependency.linux_arm64)
ffi_dep=$(prop libffiDir.linux_x64)
llvm_ver=$(prop llvmVersion.linux_x64)
for v in llvm_dep x64_dep arm64_dep ffi_dep llvm_ver; do
    [ -n "${!v}" ] || skip "$props does not name $v"
done
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    $SUDO apt-get update -q || true
fi
pkgs="clang-22 lld-22 libclang1-22 libffi-dev libc6-dev-arm64-cross libgcc-12-dev-arm64-cross libstdc++-12-dev-arm64-cross"
# shellcheck disable=SC2086
if ! dpkg -s $pkgs >/dev/null 2>&1; then
    echo "kotlin-native: installing $pkgs"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $pkgs ||
        skip "apt-get install $pkgs failed"
fi
deps=$data/dependencies
llvm=/usr/lib/llvm-22
# LLVM: konanc's LLVM is 21; clang 22 reads its bitcode. cinterop's libclangstubs.so asks
# for libclang.so.21.1 by name: a link to 22's (the C API is stable).
rm -rf "${deps:?}/$llvm_dep"
mkdir -p "$deps/$llvm_dep/bin" "$deps/$llvm_dep/lib"
for t in clang clang++ ld.lld lld llvm-ar llvm-nm llvm-objcopy llvm-strip; do
    [ -e "$llvm/bin/$t" ] && ln -sf "$llvm/bin/$t" "$deps/$llvm_dep/bin/$t"
done
# konanc links arm64 with frame pointers kept (its runtime walks them); the wrapper adds
# the flags clang 22 otherwise drops for leaf functions.
rm -f "$deps/$llvm_dep/bin/clang" "$deps/$llvm_dep/bin/clang++"
for t in clang clang++; do
    printf '#!/bin/sh\n[ "$1" = -cc1 ] && exec %s "$@"\nexec %s "$@" -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer\n' \
        "$llvm/bin/$t" "$llvm/bin/$t" >"$deps/$llvm_dep/bin/$t"
    chmod +x "$deps/$llvm_dep/bin/$t"
done
ln -s "$llvm/lib/clang" "$deps/$llvm_dep/lib/clang"
ln -s "$llvm/lib/libclang-22.so.1" "$deps/$llvm_dep/lib/libclang.so.$llvm_ver.1"
ln -s "$llvm/lib/libclang-22.so.1" "$deps/$llvm_dep/lib/libclang.so"
# Sysroots: <dep>/<triple>/sysroot, libgcc at <dep>/lib/gcc/<triple>/8.3.0 (konan's
# libGcc path, relative to the sysroot), crt files in sysroot/usr/lib.
sysroot_from() { # dep triple debian-triple root-of-libc gcc-dir
    local d=$deps/$1 s=$deps/$1/$2/sysroot
    rm -rf "$d"
    mkdir -p "$s/usr"
    ln -s "$4/include" "$s/usr/include"
    ln -s "$4/lib" "$s/usr/lib"
    ln -s "$4/lib" "$s/lib"
    gcc_dir "$5" "$d/lib/gcc/$2/8.3.0"
}
# konan's libGcc folder: the Debian gcc's files, plus an empty libcrypt.a, since konanc
# links -lcrypt and the cross packages carry no libcrypt (the toggler calls none of it).
gcc_dir() {
    mkdir -p "$2"
    for f in "$1"/*; do ln -s "$f" "$2/"; done
    [ -e "$2/libcrypt.a" ] || ar rc "$2/libcrypt.a"
}
sysroot_from "$arm64_dep" aarch64-unknown-linux-gnu aarch64-linux-gnu /usr/aarch64-linux-gnu /usr/lib/gcc-cross/aarch64-linux-gnu/12
# libc.so's linker script names /usr/aarch64-linux-gnu/lib/...: lld looks there under the sysroot
ln -s /usr/aarch64-linux-gnu "$deps/$arm64_dep/aarch64-unknown-linux-gnu/sysroot/usr/aarch64-linux-gnu"
# the host's own: headers and libraries live in multiarch folders
x64s=$deps/$x64_dep/x86_64-unknown-linux-gnu/sysroot
rm -rf "${deps:?}/$x64_dep"
mkdir -p "$x64s/usr"
ln -s /usr/include "$x64s/usr/include"
# konanc looks in usr/lib (no multiarch), libc.so's linker script names
# /lib/x86_64-linux-gnu/...: both are served by one folder of links
mkdir -p "$x64s/usr/lib"
ln -s /usr/lib/x86_64-linux-gnu/* "$x64s/usr/lib/"
ln -s /usr/lib/x86_64-linux-gnu "$x64s/usr/lib/x86_64-linux-gnu"
ln -s usr/lib "$x64s/lib"
ln -s /lib64 "$x64s/lib64"
gcc_dir /usr/lib/gcc/x86_64-linux-gnu/12 "$deps/$x64_dep/lib/gcc/x86_64-unknown-linux-gnu/8.3.0"
# libffi: the host's
rm -rf "${deps:?}/$ffi_dep"
mkdir -p "$deps/$ffi_dep/lib"
ln -s /usr/include/x86_64-linux-gnu "$deps/$ffi_dep/include"
ln -s /usr/lib/x86_64-linux-gnu/libffi.a "$deps/$ffi_dep/lib/libffi.a"
# Listed dependencies konanc never runs for a build (an emulator for cross tests, a
# debugger): present and non-empty so airplane mode accepts them.
extras=$(prop emulatorDependency.linux_x64-linux_arm64)
for d in $extras lldb-4-linux; do
    rm -rf "${deps:?}/$d"
    mkdir -p "$deps/$d"
    echo "placeholder (deps/setup.d/kotlin-native.sh): not used by rtlab's builds" >"$deps/$d/README"
done
printf '%s\n' "$llvm_dep" "$x64_dep" "$arm64_dep" "$ffi_dep" $extras lldb-4-linux >"$deps/.extracted"
echo "offline $llvm_dep $x64_dep $arm64_dep $ffi_dep" >"$stamp"
echo "kotlin-native: $KT_VERSION with Debian-assembled dependencies in $deps"
