#!/usr/bin/env bash
# The base of an A/B of the activity log's cost (docs/activity.md, "Measurements"): a checkout of
# COMMIT (default HEAD) at DIR, built, in which AB_NO_LOG=1 skips the write path's call that
# records a change (everything else, the tables and the request's actor and context included, as
# in the commit). Then, with this project's bench dataset copied twice:
#   AB_BASE_ENV=AB_NO_LOG=1 bench/ab-builds.sh DIR base.db . head.db /admin/v0/members 8 bench/member-add.lua
# (the same build on both sides measures one against the other: AB_HEAD_ENV unset records).
#   bench/no-log-checkout.sh DIR [COMMIT]
set -euo pipefail
dir=$1 commit=${2:-HEAD}
root=$(git rev-parse --show-toplevel)
git -C "$root" worktree add --detach "$dir" "$commit"
# node_modules hardlinked (cp -al): nothing in it is edited.
cp -al "$root/node_modules" "$dir/node_modules"
file="$dir/src/write-path/write-community-data.ts"
grep -q 'if (activities.length > 0)' "$file" || { echo "no recordActivities call found in $file" >&2; exit 1; }
# The variable is read once (a read of process.env per write would be charged to the base).
sed -i -e 's/if (activities.length > 0)/if (activities.length > 0 \&\& !abNoLog)/' \
  -e "/^export type DataView/i const abNoLog = process.env.AB_NO_LOG === '1';" "$file"
(cd "$dir" && npm run build)
