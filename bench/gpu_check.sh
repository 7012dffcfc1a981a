#!/usr/bin/env bash
# GPU machine: one call that checks every kernel in bench/kernels (after bench/prepare.sh here),
# times the kernels named by FILTERS against torch/cuBLAS/Triton, and reports ptxas register and
# spill counts for every PTX file. Logs go to $OUT (or /tmp).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
rm -rf bench/kernels/vulkan bench/kernels/vulkan-plain  # Vulkan runs need the loaders carried
python3 bench/bench.py bench/kernels --no-time > "$out/check.log" 2>&1
echo "== check: $(grep -c ': PASS' "$out/check.log") PASS, $(grep -c ': FAIL' "$out/check.log") FAIL"
grep ': FAIL' "$out/check.log" | head -20
if [ -d bench/kernels/sm_80 ]; then
  python3 bench/bench.py bench/kernels/sm_80 --no-time > "$out/check_sm80.log" 2>&1
  echo "== check sm_80: $(grep -c ': PASS' "$out/check_sm80.log") PASS, $(grep -c ': FAIL' "$out/check_sm80.log") FAIL"
  grep ': FAIL' "$out/check_sm80.log" | head -20
fi
for filter in ${FILTERS:-}; do
  python3 bench/bench.py bench/kernels --filter "$filter" >> "$out/time.log" 2>&1
done
[ -f "$out/time.log" ] && grep -E "ours|TFLOP|PASS|FAIL" "$out/time.log" | head -60
# One ptxas per core, each kernel's report kept whole in a file of its own (a scratch folder, so
# that no report of an earlier run is read back), then joined in the kernels' order.
reports=$(mktemp -d)
ptxas_report() { echo "== $2$(basename "$1")"; ptxas -arch="$3" -v "$1" -o /dev/null 2>&1; }
export -f ptxas_report
export reports
ls bench/kernels/*.ptx | xargs -P "$(nproc)" -I{} bash -c 'ptxas_report "$1" "" sm_90a > "$reports/1_$(basename "$1")"' _ {}
ls bench/kernels/sm_80/*.ptx 2>/dev/null | xargs -r -P "$(nproc)" -I{} bash -c 'ptxas_report "$1" sm_80/ sm_80 > "$reports/2_$(basename "$1")"' _ {}
cat "$reports"/* > "$out/ptxas.log" 2>/dev/null
rm -rf "$reports"
echo "== ptxas: $(grep -c '^== ' "$out/ptxas.log") kernels, $(grep -E 'bytes spill (stores|loads)' "$out/ptxas.log" | grep -vc ' 0 bytes spill stores, 0 bytes spill loads') with spills"
awk '/^== /{kernel=$2} /bytes spill/ && !/ 0 bytes spill stores, 0 bytes spill loads/{print "  " kernel}' "$out/ptxas.log" | head
echo "== ptxas warnings (kernels): $(grep -oE 'C75[0-9]{2}' "$out/ptxas.log" | sort | uniq -c | tr '\n' ' ')"
