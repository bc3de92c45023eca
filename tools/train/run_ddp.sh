#!/bin/bash
# Data-parallel training on every GPU of the machine in one device call (repository root,
# .pool carried, results to $OUT, as run_gpu.sh writes them):
#
#   bash tools/train/run_ddp.sh RUN_ID MINUTES [train.py arguments...]
#
# One train.py process per visible GPU through torchrun (NCCL), each on its own share of the
# real clips and its own synthetic batches, the gradients averaged: --batch is per GPU, so a
# step trains on GPUs x --batch samples. Rank 0 validates and writes the files. With one GPU
# this is run_gpu.sh's single process. NCCL_NVLS_ENABLE and TORCH_SYMM_MEM_DISABLE_MULTICAST
# (NVLink multicast off) are left as the machine sets them: torchrun passes them on.
PY=${PYTHON:-python3}
NPROC=${NPROC:-$("$PY" -c 'import torch; print(torch.cuda.device_count())')}
NPROC=$NPROC exec bash "$(dirname "$0")/run_gpu.sh" "$@"
