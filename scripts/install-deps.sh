#!/usr/bin/env bash
# Installs what building and testing vramcalc needs: Debian packages, then the
# npm packages from package-lock.json. Safe to run again; skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang and libclang-rt-dev: the sanitizer build and libFuzzer (scripts/build-sanitized.sh).
packages=(cmake g++ make clang libclang-rt-dev nlohmann-json3-dev doctest-dev emscripten chromium nodejs python3 python3-torch)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# npm: Debian's package only when no npm is on the machine already.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    sudo_cmd=""
    [[ $(id -u) -eq 0 ]] || sudo_cmd=sudo
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [[ ! -d node_modules/playwright-core || ! -d node_modules/axe-core ]]; then
    npm ci --no-audit --no-fund --loglevel=error
fi
