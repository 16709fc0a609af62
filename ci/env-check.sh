# Sourced (not run) by the ci/ scripts that take numbers from the environment: each such variable
# is checked before anything runs, so a typo costs an error naming it (exit 2, bad input) instead
# of a device call spent on a stage that silently did nothing or ran without its limit.
#
# env_whole NAME MIN: when $NAME is set, it must be a whole number >= MIN.
env_whole() {
  local name=$1 min=$2 value
  [ -n "${!name+set}" ] || return 0
  value=${!name}
  if ! [[ $value =~ ^[0-9]+$ ]] || [ "$((10#$value))" -lt "$min" ]; then
    echo "$(basename "$0"): $name='$value' is not a whole number of at least $min" >&2
    exit 2
  fi
}

# env_files NAME: when $NAME is set, every word of it must name a readable file.
env_files() {
  local name=$1 f
  [ -n "${!name+set}" ] || return 0
  for f in ${!name}; do
    if [ ! -f "$f" ] || [ ! -r "$f" ]; then
      echo "$(basename "$0"): $name names '$f', which is not a readable file" >&2
      exit 2
    fi
  done
}
