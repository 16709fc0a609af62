# Sourced by the GPU end-to-end tests. rt_gpu_gate LINE, where LINE is the kernel's line of
# `rooftune list`: returns when the kernel is available; exits 77 (ctest: skipped) only when the
# host has no GPU to offer (no NVIDIA driver, no CUDA device, or CUDA disabled by request); exits 1
# for any other reason the kernel is unavailable (e.g. a driver and a device but a plugin that does
# not load), since on a GPU host that is a broken build, not a missing GPU.
rt_gpu_gate() {
  local line=$1
  case "$line" in
    *"unavailable here:"*) ;;
    *) return 0 ;;
  esac
  local why=${line#*unavailable here: }
  case "$why" in
    *"no NVIDIA driver"* | *"no CUDA device"* | *"CUDA disabled by request"*)
      echo "skipped (no GPU here): $why"
      exit 77
      ;;
  esac
  echo "FAIL: a GPU host whose CUDA kernels are unavailable: $why" >&2
  exit 1
}
