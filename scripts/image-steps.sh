#!/usr/bin/env bash
# The container image's steps, in one place. The Dockerfile runs them; CI runs them too, outside
# Docker (test/integration/operations/image.test.ts), since no Docker engine runs there.
#
#   image-steps.sh deps                    every dependency, exactly as locked (build stage)
#   image-steps.sh build [outdir]          islands, stylesheet and server bundle into outdir (dist)
#   image-steps.sh assemble <dest> [dist]  what runs, into dest: the bundle, the locales, and the
#                                          production dependencies only (no dev tools, no scripts)
#   image-steps.sh start                   run the app in the current directory (the runtime stage's
#                                          CMD is the same command: node itself, not npm, so SIGTERM
#                                          reaches the app and its graceful shutdown)
set -euo pipefail

# Third-party telemetry some dependencies run at install time: off.
export SCARF_ANALYTICS=false

step="${1:-}"
case "$step" in
  deps)
    npm ci --no-audit --no-fund
    ;;
  build)
    npm run build -- --outdir "${2:-dist}"
    ;;
  assemble)
    dest="${2:?usage: image-steps.sh assemble <dest> [dist]}"
    dist="${3:-dist}"
    mkdir -p "$dest"
    cp -R "$dist" "$dest/dist"
    cp -R locales "$dest/locales"
    cp package.json package-lock.json "$dest/"
    # Production dependencies have no install script the app needs (the lockfile lists only a
    # denied telemetry one), so none runs.
    (cd "$dest" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund)
    ;;
  start)
    exec node dist/server.js
    ;;
  *)
    echo "usage: image-steps.sh deps | build [outdir] | assemble <dest> [dist] | start" >&2
    exit 2
    ;;
esac
