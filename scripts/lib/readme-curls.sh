# Sourced by scripts/readme-curls.mjs before the README's commands (bash, `set -euo pipefail`).
# README_ORIGIN is the server's http://127.0.0.1:<port>; README_VERBOSE=1 prints whole outputs.
__out="$(mktemp)"
__statuses="$(mktemp)"
trap 'rm -f "$__out" "$__statuses"' EXIT

# curl as the README calls it, plus: each answer's status, method and URL go to $__statuses, and
# an answer that is not 2xx fails the command (its body is still printed, and noted there).
curl() {
  local body status
  body="$(mktemp)"
  if ! status="$(command curl -sS --max-time 30 -o "$body" -w '%{http_code} %{method} %{url_effective}' "$@")"; then
    cat "$body"
    rm -f "$body"
    printf 'no answer: %s\n' "${status:-curl failed}" >>"$__statuses"
    return 1
  fi
  cat "$body"
  if [[ "$status" == 2??\ * ]]; then
    printf '%s\n' "$status" >>"$__statuses"
    rm -f "$body"
    return 0
  fi
  # Whatever the README pipes the answer into, the report shows the error it carried.
  printf '%s: %.300s\n' "$status" "$(tr -s '[:space:]' ' ' <"$body")" >>"$__statuses"
  rm -f "$body"
  return 22
}

__begin() {
  printf '\n\033[1m$ %s\033[0m\n' "$1"
  : >"$__statuses"
}

__statuses_report() {
  local mark="$1" line width=140
  if [[ "$mark" == '✘' ]]; then width=400; fi
  while IFS= read -r line; do printf '  %s %.*s\n' "$mark" "$width" "${line//"$README_ORIGIN"/}"; done <"$__statuses"
}

# The short result line: each answer's status, then the variable the command set, or its
# output squeezed onto one line and cut short.
__end() {
  __statuses_report '✔'
  if [[ -n "$1" ]]; then
    printf '  %s=%.100s\n' "$1" "$(printf %s "${!1}" | tr -s '[:space:]' ' ')"
  elif [[ "${README_VERBOSE:-0}" == 1 ]]; then
    sed 's/^/    /' "$__out"
  elif [[ -s "$__out" ]]; then
    printf '  %.160s\n' "$(tr -s '[:space:]' ' ' <"$__out")"
  fi
}

# On the first failure (set -e stops right after): what the command got, in full.
__failed() {
  local code="$1"
  {
    __statuses_report '✘'
    sed 's/^/    /' "$__out"
    printf '  ✘ failed (exit %s)\n' "$code"
  } >&2
}
trap '__failed $?' ERR
