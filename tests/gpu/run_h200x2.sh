#!/bin/bash
# tests/gpu/run_h200x2.sh - the collectives of issue 5 on two H200s of one
# host (kind nvidia-h200-x2), from the repository root. NVLink multicast stays
# off. Results land in $OUT (default /tmp/simt-out): collectives.json and
# logs.tgz (topology, nvidia-smi, NCCL's INFO log).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
O=${OUT:-/tmp/simt-out}
L=/tmp/simt-logs/h200x2
mkdir -p "$O" "$L"
export PYTHONUNBUFFERED=1
snap() { tar czf "$O/logs.tgz" -C /tmp simt-logs 2>/dev/null; }
date -u > "$L/date.txt"
nvidia-smi > "$L/smi-start.txt" 2>&1
nvidia-smi topo -m > "$L/topo.txt" 2>&1
nvidia-smi nvlink -s > "$L/nvlink.txt" 2>&1
cat "$L/topo.txt"
python3 -c 'import torch; print(torch.__version__, torch.cuda.device_count(), torch.cuda.nccl.version())' 2>&1 | tee "$L/torch.txt"
snap
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV NCCL_DEBUG_FILE="$L/nccl-debug.eager.%h.%p.txt" \
    timeout 150 python3 tests/gpu/nccl_bench.py --out "$L/collectives-eager.json" --budget-s 100 2>&1 \
    | tee "$L/nccl-eager.log" | grep -v "^  "
snap
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV NCCL_DEBUG_FILE="$L/nccl-debug.graph.%h.%p.txt" \
    timeout 150 python3 tests/gpu/nccl_bench.py --graph --out "$L/collectives-graph.json" --budget-s 100 2>&1 \
    | tee "$L/nccl-graph.log" | grep -v "^  "
tail -n 3 "$L/nccl-graph.log"
python3 tests/gpu/merge_collectives.py "$L/collectives-eager.json" "$L/collectives-graph.json" "$O/collectives.json" \
    || cp -f "$L/collectives-eager.json" "$O/collectives.json"
for f in eager graph; do
    echo "--- $f (1 KiB, 1 MiB, 1 GiB, 4 GiB)"
    grep -E "^  [a-z_]+ +(1024|1048576|1073741824|4294967296) " "$L/nccl-$f.log"
done
nvidia-smi > "$L/smi-end.txt" 2>&1
snap
ls -la "$O"
