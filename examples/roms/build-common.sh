# Sourced by examples/roms/*/build.sh (`build.sh OUTDIR`): checks the argument and sets `here` (the ROM's
# folder), `out` (OUTDIR, made and absolute) and `work` (a temporary folder removed at exit).
if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# needs PACKAGE TOOL...: stops naming the Debian package when a tool is missing.
needs() {
    local package=$1 tool
    shift
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || { echo "build.sh: $tool not found (apt-get install $package)" >&2; exit 1; }
    done
}
