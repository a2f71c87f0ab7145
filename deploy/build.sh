#!/bin/sh
# Builds latchkey as the image's build stage does, and gathers what the runtime stage copies:
# the binary (Swift's standard library linked in) and its resource bundles, in OUT.
#
#   deploy/build.sh [OUT]      OUT defaults to $LATCHKEY_BUILD_PATH/dist
#
# LATCHKEY_BUILD_PATH (default .build-deploy) keeps this build apart from the development one.
# The runtime needs only glibc, libstdc++, zlib and the packages in deploy/runtime-packages.txt;
# Server/Tests/compat/test_deploy.py checks that on the binary this script makes.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LATCHKEY_BUILD_PATH:-$root/.build-deploy}
out=${1:-$build/dist}
flags="--package-path $root/Server --configuration release --product latchkey --static-swift-stdlib --build-path $build"
# shellcheck disable=SC2086
swift build $flags
# shellcheck disable=SC2086
bin=$(swift build $flags --show-bin-path)
rm -rf "$out"
mkdir -p "$out"
cp "$bin/latchkey" "$out/latchkey"
for bundle in "$bin"/*.resources; do
    [ -d "$bundle" ] && cp -R "$bundle" "$out/"
done
echo "$out"
