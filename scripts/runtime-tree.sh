#!/usr/bin/env bash
# scripts/runtime-tree.sh DEST — the provider's production tree, from a built checkout.
#
#   npm ci && npm run build && scripts/runtime-tree.sh /srv/signet
#   cd /srv/signet && node_modules/.bin/signet provider
#
# DEST gets the built provider and the five libraries it uses (JavaScript, the wallet page,
# package manifests), the lockfile, and node_modules pruned to production dependencies: no
# compiler, bundler, test runner, local Ethereum node or ENS contracts. The Dockerfile's build
# stage runs exactly this; e2e/production.test.ts runs it in a scratch directory and signs in
# against the result.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:?usage: scripts/runtime-tree.sh DEST}"
[ -f "$src/apps/provider/dist/bin.js" ] && [ -d "$src/apps/provider/web/dist" ] \
  || { echo "runtime-tree: build first (npm ci && npm run build)" >&2; exit 1; }
[ -d "$src/node_modules" ] || { echo "runtime-tree: install first (npm ci)" >&2; exit 1; }
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

workspaces=(apps/provider packages/siwe packages/siws packages/siwb packages/settings packages/ratelimit)
for ws in "${workspaces[@]}"; do
  mkdir -p "$dest/$ws"
  cp "$src/$ws/package.json" "$dest/$ws/"
  # Compiled JavaScript and declarations; no build info, no tests (never compiled into dist).
  rm -rf "$dest/$ws/dist" && cp -r "$src/$ws/dist" "$dest/$ws/dist" && rm -f "$dest/$ws/dist/.tsbuildinfo"
done
cp -r "$src/apps/provider/bin" "$dest/apps/provider/"
mkdir -p "$dest/apps/provider/web" && cp -r "$src/apps/provider/web/dist" "$dest/apps/provider/web/"
cp "$src/package-lock.json" "$src/LICENSE" "$dest/"

# A root manifest with only these workspaces and no scripts or devDependencies.
node -e '
  const root = require(process.argv[1]);
  const manifest = { name: root.name, version: root.version, private: true, license: root.license,
    type: root.type, engines: root.engines, workspaces: process.argv.slice(2) };
  process.stdout.write(JSON.stringify(manifest, null, 2) + "\n");
' "$src/package.json" "${workspaces[@]}" > "$dest/package.json"

# node_modules from the build (hard links where the filesystem allows), then pruned: the native
# addons built there (better-sqlite3 for Node 20) come along without a compiler.
rm -rf "$dest/node_modules"
cp -al "$src/node_modules" "$dest/node_modules" 2>/dev/null || cp -a "$src/node_modules" "$dest/node_modules"
# npm rewrites its hidden lockfile in place: drop the (linked) copy so the source keeps its own.
rm -f "$dest/node_modules/.package-lock.json"
(cd "$dest" && npm prune --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
# OpenTelemetry ships each package three times (build/src for Node, build/esm and build/esnext
# for bundlers, which Node's export conditions never pick): keep the one Node loads.
find "$dest/node_modules/@opentelemetry" -mindepth 3 -maxdepth 3 -type d \( -path '*/build/esm' -o -path '*/build/esnext' \) \
  -exec rm -rf {} + 2>/dev/null || true
find "$dest/node_modules" -mindepth 1 -type d -empty -delete
# The tree is for the Node that runs this script: on Node 22+ the Node 20 SQLite line is unused.
if [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ]; then rm -rf "$dest/node_modules/better-sqlite3-node20"; fi
echo "runtime-tree: $(du -sh "$dest" | cut -f1) in $dest"
