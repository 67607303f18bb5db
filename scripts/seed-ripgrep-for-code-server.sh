#!/usr/bin/env sh
# code-server (the instances' code editor, an optional npm dependency) builds VS Code's modules when
# it installs, and one of them, @vscode/ripgrep, downloads its rg binary from GitHub: a machine that
# reaches only the npm registry cannot. That module first looks for the archive in its download
# cache, so this puts Debian's rg (apt-get install ripgrep) there. Run it before `npm ci`.
# The versions are those code-server 4.100.3's VS Code pins (lib/vscode/npm-shrinkwrap.json).
set -eu
RIPGREP_MODULE_VERSION=1.15.11
RIPGREP_RELEASE=v13.0.0-10

rg_binary=$(command -v rg) || { echo "ripgrep is not installed: apt-get install ripgrep" >&2; exit 1; }
case "$(uname -m)" in
  x86_64) target=x86_64-unknown-linux-musl ;;
  aarch64) target=aarch64-unknown-linux-musl ;;
  *) echo "no ripgrep target for $(uname -m): code-server will not install here" >&2; exit 1 ;;
esac

cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-${RIPGREP_MODULE_VERSION}"
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$cache"
cp "$rg_binary" "$staging/rg"
tar czf "$cache/ripgrep-${RIPGREP_RELEASE}-${target}.tar.gz" -C "$staging" rg
echo "ripgrep for code-server: $rg_binary -> $cache"
