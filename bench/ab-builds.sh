#!/usr/bin/env bash
# A focused A/B of two builds of the server, interleaved so that background load hits both alike:
#   bench/ab-builds.sh BASE_CHECKOUT BASE_DB HEAD_CHECKOUT HEAD_DB PATH [ROUNDS] [WRK_SCRIPT]
# (a DB is a SQLite file or a postgres:// URL: one checkout on both compares the engines)
# (bench/member-add.lua: POST /admin/v0/members with a fresh e-mail and Idempotency-Key per request;
# bench/event-create.lua: POST /admin/v0/calendar_events with a fresh Idempotency-Key)
# Each checkout must be built (npm run build) and each database hold the bench dataset as that
# build's generator made it (npm run bench -- --build-only --sizes 10k, then copy
# bench/.data/sqlite/10k.db); a key is created in each. Both servers run pinned to core 0, wrk to
# core 1 (50 connections, 3 s warm-up, 10 s measured); for each run it prints req/s and the
# server's CPU (user + system) per request, read from /proc. Compare medians over an even number of rounds.
# AB_BASE_ENV / AB_HEAD_ENV add variables to one side's server (e.g. AB_HEAD_ENV="METRICS_TOKEN=..."
# on one checkout for both sides measures metrics on against off).
set -euo pipefail
base_dir=$1 base_db=$2 head_dir=$3 head_db=$4 path=$5 rounds=${6:-3} script=${7:-}
wrk_args=()
[[ -n "$script" ]] && wrk_args=(-s "$script")

# A database is a SQLite file or a postgres:// URL (a bench dataset's, with its search_path): the
# same build on both compares the engines, alternately, so that the machine's drift hits both alike.
# A PostgreSQL server gets the node option the README asks for (serverNodeOptions).
url_of() { if [[ $1 == postgres* ]]; then echo "$1"; else echo "sqlite:$1"; fi; }
node_options_of() { if [[ $1 == postgres* ]]; then echo "--max-semi-space-size=32"; fi; }

key_for() { # checkout db -> a new key of the first community
  (cd "$1" && export DATABASE_URL="$(url_of "$2")" &&
    community=$(node bin/community-admin.js community list --json | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const j=JSON.parse(s);console.log((j.data??j)[0].id)})') &&
    node bin/community-admin.js key create --community "$community" --label ab --json | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const j=JSON.parse(s);console.log((j.data??j).key)})')
}
start() { # checkout db port [extra environment] -> pid
  # shellcheck disable=SC2086 # the extra environment is a list of NAME=value words
  (cd "$1" && DATABASE_URL="$(url_of "$2")" NODE_OPTIONS="$(node_options_of "$2")" PORT=$3 HOST=127.0.0.1 LOG_LEVEL=warn RATE_LIMIT_PER_SECOND=1000000000 \
    RATE_LIMIT_UNAUTHENTICATED_PER_SECOND=1000000000 exec env ${4:-} taskset -c 0 node bin/community-admin.js serve >/dev/null 2>&1) &
  echo $!
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
measure() { # label pid url key
  taskset -c 1 wrk -t1 -c50 -d3s "${wrk_args[@]}" -H "authorization: Bearer $4" "$3" >/dev/null
  local before out after
  before=$(cpu_ticks "$2")
  out=$(taskset -c 1 wrk -t1 -c50 -d10s "${wrk_args[@]}" -H "authorization: Bearer $4" "$3")
  after=$(cpu_ticks "$2")
  local rps requests
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  local failed
  failed=$(awk '/Non-2xx or 3xx responses/ {print $NF}' <<<"$out")
  echo "$1 req/s $rps, CPU µs/req $(( (after - before) * 1000000 / $(getconf CLK_TCK) / requests ))${failed:+, NON-2XX $failed}"
}

base_key=$(key_for "$base_dir" "$base_db")
head_key=$(key_for "$head_dir" "$head_db")
base_pid=$(start "$base_dir" "$base_db" 3991 "${AB_BASE_ENV:-}")
head_pid=$(start "$head_dir" "$head_db" 3992 "${AB_HEAD_ENV:-}")
trap 'kill $base_pid $head_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do curl -sf http://127.0.0.1:3991/healthz >/dev/null && curl -sf http://127.0.0.1:3992/healthz >/dev/null && break; sleep 0.5; done
# The order alternates (base first in odd rounds, head first in even ones): the run measured second
# measured 8-15% more CPU per request in a round, whichever build it was (Home page 3, load 7-12).
for round in $(seq 1 "$rounds"); do
  if (( round % 2 == 1 )); then
    measure "round $round base" "$base_pid" "http://127.0.0.1:3991$path" "$base_key"
    measure "round $round head" "$head_pid" "http://127.0.0.1:3992$path" "$head_key"
  else
    measure "round $round head" "$head_pid" "http://127.0.0.1:3992$path" "$head_key"
    measure "round $round base" "$base_pid" "http://127.0.0.1:3991$path" "$base_key"
  fi
done
