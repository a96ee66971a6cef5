#!/bin/sh
# cli_symbols.sh: what the built libraries export (nm -D --defined-only), against what they
# may export:
#  - libphasor.so, preloaded into applications, exports the MPI entry points it wraps and
#    nothing else: for every MPI_ call of pmpi/mpi_spec.txt its C name and the Fortran
#    spellings mpi_x_, mpi_x, mpi_x__, MPI_X; anything else (or any of those missing) fails.
#  - libplogread.so exports exactly the symbols reader/libplogread.map lists, each under a
#    version node of that map.
#  - the installed headers alone (make install-*HEADERS into a scratch directory, built
#    without phasor's PLOG_INTERNAL) declare every symbol of the map, and a program taking
#    the address of each links against libplogread.so alone, and runs. Needs a C compiler ($CC or
#    cc); without one this part says SKIP, the others still run.
# Without nm it says SKIP and exits 77 (reported as skipped, never as passed).
# Usage: cli_symbols.sh [BUILD_DIR]  (default: the directory of $PHASOR).
# Last line: "N passed, M failed".
bdir=${1:-$(dirname "${PHASOR:-./phasor}")}
top=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v nm >/dev/null 2>&1; then
    echo "SKIP cli_symbols.sh: nm is not installed (apt-get install binutils)"
    echo "0 passed, 0 failed"
    exit 77
fi
shim=$bdir/.libs/libphasor.so
reader=$bdir/.libs/libplogread.so
spec=$top/pmpi/mpi_spec.txt
map=$top/reader/libplogread.map
for f in "$shim" "$reader" "$spec" "$map"; do
    if [ ! -f "$f" ]; then
        echo "cli_symbols.sh: $f is missing (build first: make -C BUILD_DIR)" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
done
. "$(dirname "$0")/cli_lib.sh"

# exported() LIB: the names it defines in its dynamic symbol table, versions cut off.
exported() {
    nm -D --defined-only "$1" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u
}
# compare NAME GOT WANT: ok when the two sorted lists are equal; else the differences.
compare() {
    extra=$(comm -23 "$2" "$3")
    missing=$(comm -13 "$2" "$3")
    if [ -z "$extra" ] && [ -z "$missing" ]; then
        ok "$1 ($(wc -l <"$2") symbols)"
        return
    fi
    bad "$1"
    [ -n "$extra" ] && echo "$extra" | head -20 | sed 's/^/     exported, not allowed: /'
    [ -n "$missing" ] && echo "$missing" | head -20 | sed 's/^/     allowed, not exported: /'
}

# ---- the shim ----
exported "$shim" >"$tmp/shim.got"
awk '/^[0-9]+[ \t]+[A-Z_]+[ \t]+int[ \t]+MPI_[A-Za-z0-9_]+\(/ {
         name = $4; sub(/\(.*/, "", name); low = tolower(name)
         print name; print low "_"; print low; print low "__"; print toupper(name)
     }' "$spec" | sort -u >"$tmp/shim.want"
check "the spec names MPI calls ($(wc -l <"$tmp/shim.want") entry points)" \
    '[ -s "$tmp/shim.want" ] && grep -qx MPI_Init "$tmp/shim.want" && grep -qx mpi_send_ "$tmp/shim.want"'
compare "libphasor.so exports the MPI entry points of the spec and nothing else" \
    "$tmp/shim.got" "$tmp/shim.want"
check "libphasor.so defines no PMPI_ or pmpi_ symbol" '! grep -qi "^pmpi_" "$tmp/shim.got"'

# ---- libplogread ----
# the map's symbols: the words ending in ';' between "global:" and "local:", comments cut
sed 's:/\*.*\*/::g; /\/\*/,/\*\//d' "$map" |
    awk '/global:/ { on = 1; next } /local:/ || /^}/ { on = 0 } on && /;/ { gsub(/[ \t;]/, ""); print }' |
    sort -u >"$tmp/read.want"
nodes=$(sed 's:/\*.*\*/::g; /\/\*/,/\*\//d' "$map" | awk '/^[A-Za-z_][A-Za-z0-9_.]*[ \t]*\{/ { print $1 }')
check "the map lists symbols under a version node ($(wc -l <"$tmp/read.want") symbols, node $(echo $nodes))" \
    '[ -s "$tmp/read.want" ] && [ -n "$nodes" ] && grep -qx plog_run_open "$tmp/read.want"'
exported "$reader" >"$tmp/read.got"
compare "libplogread.so exports exactly the symbols of reader/libplogread.map" \
    "$tmp/read.got" "$tmp/read.want"
nm -D --defined-only "$reader" | awk '$2 != "A" { print $3 }' >"$tmp/read.versioned"
unversioned=$(for n in $nodes; do echo "@@$n"; done | grep -vFf - "$tmp/read.versioned")
check "every symbol of libplogread.so carries a version of the map" '[ -z "$unversioned" ]'
[ -n "$unversioned" ] && echo "$unversioned" | head -5 | sed 's/^/     /'

# ---- the installed headers declare the map's symbols, which link against the library alone ----
cc=${CC:-cc}
if ! command -v "$cc" >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
    echo "SKIP the installed headers: no C compiler ($cc) or make"
else
    if make -s -C "$bdir" install-pkgincludeHEADERS install-nodist_pkgincludeHEADERS \
            DESTDIR="$tmp/inst" >"$tmp/install.out" 2>&1; then
        inc=$(dirname "$(find "$tmp/inst" -name plog_reader.h | head -1)")
        {
            echo '#include <plog_callsites.h>'
            echo '#include <plog_calls.h>'
            echo '#include <plog_probeset.h>'
            echo '#include <plog_reader.h>'
            echo 'static void (*const api[])(void) = {'
            sed 's/.*/    (void (*)(void))&,/' "$tmp/read.want"
            echo '};'
            echo 'int main(void) { return sizeof(api) == 0 || plog_strerror(PLOG_OK) == NULL; }'
        } >"$tmp/api.c"
        # built as the library was: a sanitized library needs a sanitized program
        san=$(sed -n 's/^SAN_CFLAGS = //p' "$bdir/Makefile" 2>/dev/null)
        if "$cc" -std=c11 -Wall -Werror $san -I"$inc" -o "$tmp/api" "$tmp/api.c" \
                -L"$(dirname "$reader")" -lplogread >"$tmp/cc.out" 2>&1 &&
           LD_LIBRARY_PATH="$(dirname "$reader")" "$tmp/api" >"$tmp/cc.out" 2>&1; then
            ok "the installed headers declare the map's $(wc -l <"$tmp/read.want") symbols; they link against libplogread.so"
        else
            bad "the installed headers declare the map's symbols; they link against libplogread.so"
            sed 's/^/     /' "$tmp/cc.out" | head -10
        fi
    else
        bad "make install-pkgincludeHEADERS into a scratch directory"
        sed 's/^/     /' "$tmp/install.out" | head -5
    fi
fi
cli_done
