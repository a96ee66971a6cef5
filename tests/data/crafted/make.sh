#!/bin/sh
# make.sh: rebuild the crafted logs of this directory from tests/data/golden (run from the
# source tree's top after the golden logs change). Each is a regression input that once
# cost a reader minutes or gigabytes; tests/unit/cli_guard.sh runs every command on them.
#   world-N.plog   golden rank 0 whose header claims a world of N ranks (CRC fixed), read alone
#   world-dir/     the golden directory with rank 0 claiming 100000 ranks
set -eu
cd "$(dirname "$0")"
setworld() { # SRC DST N: the header's world_size (offset 20) set, its CRC (offset 56) redone
    python3 - "$1" "$2" "$3" <<'PY'
import struct, sys, zlib
src, dst, ws = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
hl = struct.unpack_from('<I', b, 12)[0]
struct.pack_into('<i', b, 20, ws)
struct.pack_into('<I', b, 56, 0)
struct.pack_into('<I', b, 56, zlib.crc32(bytes(b[:hl])) & 0xffffffff)
open(dst, 'wb').write(b)
PY
}
for n in 10000 100000 20000000 2147483647; do
    setworld ../golden/rank-000000.plog "world-$n.plog" "$n"
done
rm -rf world-dir && mkdir world-dir && cp ../golden/*.plog world-dir/
setworld ../golden/rank-000000.plog world-dir/rank-000000.plog 100000
