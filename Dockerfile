# syntax=docker/dockerfile:1
# Two stages. build: every dependency and the bundle. runtime: the bundle, the locales and the
# production dependencies only, run by the unprivileged `node` user. Each RUN is a step of
# scripts/image-steps.sh, which CI also runs outside Docker, so what the image does is tested.

FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY scripts/image-steps.sh scripts/
RUN scripts/image-steps.sh deps
COPY . .
RUN scripts/image-steps.sh build dist \
 && scripts/image-steps.sh assemble /app dist

FROM node:24-slim AS runtime
# The old generation is capped at what the memory soak was measured with (README, "Memory soak"):
# a sign-in service needs little heap, and an uncapped V8 grows its heap lazily towards the machine's
# memory. Raise it with NODE_OPTIONS for a larger container. The young generation stays small too: with
# V8's default under this cap, the old space was collected about 20 times a second under load
# (scripts/local-product.ts APP_NODE_FLAGS says the same for npm start). Two malloc arenas instead of one
# per allocating thread: freed native memory stays in each arena (APP_ALLOCATOR_ENV there).
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=4" \
    MALLOC_ARENA_MAX=2
WORKDIR /app
# Owned by root, readable by all: the app cannot rewrite its own code.
COPY --from=build /app /app
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# Same command as `scripts/image-steps.sh start`: node directly (not npm, not a shell), so the
# SIGTERM from `docker stop` reaches the app, which drains in-flight requests and exits 0.
CMD ["node", "dist/server.js"]
