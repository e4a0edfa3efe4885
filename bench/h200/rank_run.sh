#!/usr/bin/env bash
# One torchrun rank under `gpuwatch run`, in a run directory of its own: $RANKS_DIR/rank_$RANK.
# torchrun --no-python starts this once per rank with RANK, LOCAL_RANK, WORLD_SIZE and
# TORCHELASTIC_RUN_ID set; gpuwatch run records them as the job's identity in meta.json, so
# `gpuwatch report $RANKS_DIR/*` gathers the ranks by job id (docs/report.md, "One job, several
# ranks").
#   torchrun --standalone --nproc_per_node 2 --no-python bench/h200/rank_run.sh python3 train.py
# GW_RUN_ARGS: more options for gpuwatch run ("-i 0.2"), split on spaces.
# shellcheck disable=SC2086
exec "${GW:-build/gpuwatch}" run -o "${RANKS_DIR:?set RANKS_DIR}/rank_${RANK:?torchrun sets RANK}" \
  ${GW_RUN_ARGS:-} -- "$@"
