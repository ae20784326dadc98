#!/bin/sh
# build/dist.sh: versioned release archives of dbeast with SHA-256
# checksums (make dist). The binary links cgo (pg_query), so every target
# needs a C compiler for it: the host's gcc for the host, a cross gcc
# (Debian: apt-get install gcc-aarch64-linux-gnu) for linux/arm64, and
# whatever CC_<os>_<arch> names for the others (darwin, windows). A
# target without a compiler is skipped with a line that says so.
#
#   VERSION=v0.2.0 TARGETS="linux/amd64 linux/arm64" OUT=dist build/dist.sh
set -eu
GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=$(git rev-parse HEAD 2>/dev/null || echo "")
TARGETS=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"}
OUT=${OUT:-dist}
mkdir -p "$OUT"
hostos=$($GO env GOHOSTOS)
hostarch=$($GO env GOHOSTARCH)
built=""
for t in $TARGETS; do
	os=${t%/*}
	arch=${t#*/}
	var="CC_${os}_${arch}"
	cc=$(eval echo "\${$var:-}")
	if [ -z "$cc" ]; then
		if [ "$os/$arch" = "$hostos/$hostarch" ]; then
			cc=${CC:-gcc}
		elif [ "$os/$arch" = linux/arm64 ]; then
			cc=aarch64-linux-gnu-gcc
		elif [ "$os/$arch" = linux/amd64 ]; then
			cc=x86_64-linux-gnu-gcc
		fi
	fi
	if [ -z "$cc" ] || ! command -v "$cc" >/dev/null 2>&1; then
		echo "dist: skipping $t: no C compiler for it (set $var)"
		continue
	fi
	name=dbeast-$VERSION-$os-$arch
	dir=$(mktemp -d)
	mkdir "$dir/$name"
	exe=dbeast
	[ "$os" = windows ] && exe=dbeast.exe
	echo "dist: building $t with $cc"
	CGO_ENABLED=1 GOOS=$os GOARCH=$arch CC=$cc $GO build -trimpath \
		-ldflags "-s -w -X github.com/dbeast/dbeast/broker.release=$VERSION -X github.com/dbeast/dbeast/broker.commit=$COMMIT" \
		-o "$dir/$name/$exe" ./cmd/dbeast
	cp README.md "$dir/$name/"
	[ -f LICENSE ] && cp LICENSE "$dir/$name/"
	tar -C "$dir" -czf "$OUT/$name.tar.gz" "$name"
	rm -rf "$dir"
	built="$built $name.tar.gz"
done
if [ -z "$built" ]; then
	echo "dist: nothing was built" >&2
	exit 1
fi
(cd "$OUT" && sha256sum $built > SHA256SUMS-$VERSION)
echo "dist: $OUT/SHA256SUMS-$VERSION"
