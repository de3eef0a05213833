#!/usr/bin/env bash
# Builds everything, prints the CLI's answer for the default model, then
# serves the calculator page. usage: ./run.sh [port]
set -euo pipefail
cd "$(dirname "$0")"
port=${1:-8000}
scripts/install-deps.sh
scripts/build.sh
echo
build/vramcalc --model llama-3-8b --mode train
echo
echo "vramcalc page: http://localhost:$port/  (Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory web
