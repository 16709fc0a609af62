#!/usr/bin/env bash
# Prints the machine file rooftune should bound this GPU host's points with: the committed file of
# the lent host with this GPU and GPU count (roofline/machines/h100-x1, h100-x2, h100-x4, h200-x2,
# h200-x4), since `machine: auto` ranks files by name only and picks the one-GPU file on a
# multi-H100 host (no GPU-to-GPU link: multi-GPU points would get no bound); else "auto".
root=$(cd "$(dirname "$0")/.." && pwd)
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$name" in
*H100*) fam=h100 ;;
*H200*) fam=h200 ;;
*) fam= ;;
esac
file=$root/roofline/machines/$fam-x$n.yaml
if [ -n "$fam" ] && [ -f "$file" ]; then echo "$file"; else echo auto; fi
