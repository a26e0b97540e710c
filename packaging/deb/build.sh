#!/usr/bin/env bash
# Builds the Debian packages into target/deb with dpkg-deb (see docs/packaging.md):
#
#   libketama1     the shared library (SONAME libketama.so.1) in the multiarch directory
#   libketama-dev  header, libketama.so link, static library, pkg-config file
#   ketama         the CLI with its man page and bash/zsh/fish completions
#   libketama-java the jar in /usr/share/java
#   php-ketama     the PHP FFI binding in /usr/share/php/Ketama
#
# Run by `make deb`, which first builds what it packs: the release library and
# CLI (cargo), target/man/ketama.1 (make man), target/completions (make
# completions) and target/ketama.jar (make java). Needs dpkg-dev (dpkg-deb,
# dpkg-shlibdeps, dpkg-architecture) and binutils (strip); no root.
#
# Environment: DEB_MAINTAINER overrides the Maintainer field; SOURCE_DATE_EPOCH
# the changelog date and file times (default: the last commit's time).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
templates=packaging/deb

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
maintainer=${DEB_MAINTAINER:-ketama maintainers <maintainers@ketama.invalid>}
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH
out=target/deb
work=target/deb-build
stage=$work/stage

release=target/release
inputs=(
  "$release/libketama.so" "$release/libketama.a" "$release/ketama" include/ketama.h
  target/man/ketama.1 target/completions/ketama.bash target/completions/_ketama
  target/completions/ketama.fish target/ketama.jar bindings/php/ketama_ffi.h
)
for input in "${inputs[@]}"; do
  [ -f "$input" ] || { echo "deb: $input is missing (run make deb, which builds it)" >&2; exit 1; }
done

umask 022
rm -rf "$out" "$work"
mkdir -p "$out" "$stage"

# The changelog shared by every package (Debian format, native version).
changelog_date=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
sed -e "s|@VERSION@|$version|g" -e "s|@MAINTAINER@|$maintainer|g" -e "s|@DATE@|$changelog_date|g" \
  "$templates/changelog.in" > "$work/changelog"

# Depends of ELF files as dpkg-shlibdeps computes them, and the library's
# symbols file from dpkg-gensymbols (both read debian/control).
shlibdeps_dir=$work/shlibdeps
mkdir -p "$shlibdeps_dir/debian"
printf 'Source: ketama\n\nPackage: ketama\nArchitecture: any\n\nPackage: libketama1\nArchitecture: any\n' \
  > "$shlibdeps_dir/debian/control"
cp "$work/changelog" "$shlibdeps_dir/debian/changelog"
shlib_depends() {
  local files=() substvars
  for f in "$@"; do files+=("-e$root/$f"); done
  if ! substvars=$(cd "$shlibdeps_dir" && dpkg-shlibdeps -O "${files[@]}" 2>"$root/$work/shlibdeps.log"); then
    cat "$work/shlibdeps.log" >&2
    echo "deb: dpkg-shlibdeps failed on $*" >&2
    return 1
  fi
  sed -n 's/^shlibs:Depends=//p' <<<"$substvars" | grep . \
    || { echo "deb: dpkg-shlibdeps found no dependencies of $*" >&2; return 1; }
}

# Starts a package's tree: /usr/share/doc/PKG with copyright and changelog.
begin() {
  local pkg=$1
  mkdir -p "$stage/$pkg/DEBIAN" "$stage/$pkg/usr/share/doc/$pkg"
  install -m 0644 "$templates/copyright" "$stage/$pkg/usr/share/doc/$pkg/copyright"
  gzip -9n < "$work/changelog" > "$stage/$pkg/usr/share/doc/$pkg/changelog.gz"
  chmod 0644 "$stage/$pkg/usr/share/doc/$pkg/changelog.gz"
}

# Writes DEBIAN/control from its template, DEBIAN/md5sums, and builds the .deb.
finish() {
  local pkg=$1 pkg_arch=$2 depends=$3
  local dir=$stage/$pkg
  local size
  size=$(find "$dir" -path "$dir/DEBIAN" -prune -o \( -type f -o -type l \) -printf '%s\n' \
    | awk '{ kib += int(($1 + 1023) / 1024) } END { print kib + 0 }')
  local control
  control=$(<"$templates/$pkg.control")
  control=${control//@VERSION@/$version}
  control=${control//@ARCH@/$pkg_arch}
  control=${control//@MAINTAINER@/$maintainer}
  control=${control//@DEPENDS@/$depends}
  control=${control//@INSTALLED_SIZE@/$size}
  printf '%s\n' "$control" > "$dir/DEBIAN/control"
  # Conffiles are left out of md5sums, as dh_md5sums does: dpkg keeps their sums itself.
  (cd "$dir" && find . \( -path ./DEBIAN -o -path ./etc \) -prune -o -type f -printf '%P\n' | LC_ALL=C sort \
    | xargs -d '\n' md5sum) > "$dir/DEBIAN/md5sums"
  chmod 0644 "$dir/DEBIAN/"*
  for script in preinst postinst prerm postrm; do
    [ ! -f "$dir/DEBIAN/$script" ] || chmod 0755 "$dir/DEBIAN/$script"
  done
  find "$dir" -type d -exec chmod 0755 {} +
  find "$dir" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  dpkg-deb --root-owner-group -Zxz --build "$dir" "$out/${pkg}_${version}_${pkg_arch}.deb" >/dev/null
  echo "deb: $out/${pkg}_${version}_${pkg_arch}.deb"
}

strip_shared() { strip --strip-unneeded --remove-section=.comment --remove-section=.note -o "$2" "$1"; }

libdir=usr/lib/$multiarch

# --- libketama1
pkg=libketama1
begin $pkg
install -d "$stage/$pkg/$libdir"
strip_shared "$release/libketama.so" "$stage/$pkg/$libdir/libketama.so.$version"
chmod 0644 "$stage/$pkg/$libdir/libketama.so.$version"
ln -s "libketama.so.$version" "$stage/$pkg/$libdir/libketama.so.1"
# shlibs: programs linked against this library depend on libketama1 of at
# least this version; ldconfig runs through the libc-bin trigger.
echo "libketama 1 libketama1 (>= $version)" > "$stage/$pkg/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$stage/$pkg/DEBIAN/triggers"
# symbols: every exported ketama_* function, first present in this version.
(cd "$shlibdeps_dir" && dpkg-gensymbols -q -v"$version" -p$pkg -P"$root/$stage/$pkg" \
  -O"$root/$stage/$pkg/DEBIAN/symbols")
sed -i '1a\* Build-Depends-Package: libketama-dev' "$stage/$pkg/DEBIAN/symbols"
depends=$(shlib_depends "$stage/$pkg/$libdir/libketama.so.$version")
finish $pkg "$arch" "$depends"

# --- libketama-dev
pkg=libketama-dev
begin $pkg
install -d "$stage/$pkg/$libdir/pkgconfig" "$stage/$pkg/usr/include"
install -m 0644 include/ketama.h "$stage/$pkg/usr/include/ketama.h"
ln -s libketama.so.1 "$stage/$pkg/$libdir/libketama.so"
strip --strip-debug --remove-section=.comment --remove-section=.note --enable-deterministic-archives \
  -o "$stage/$pkg/$libdir/libketama.a" "$release/libketama.a"
chmod 0644 "$stage/$pkg/$libdir/libketama.a"
sed -e 's|@PREFIX@|/usr|' -e 's|@LIBDIR@|${prefix}/lib/'"$multiarch"'|' -e 's|@INCLUDEDIR@|${prefix}/include|' \
  -e "s|@VERSION@|$version|" ketama.pc.in > "$stage/$pkg/$libdir/pkgconfig/ketama.pc"
chmod 0644 "$stage/$pkg/$libdir/pkgconfig/ketama.pc"
finish $pkg "$arch" "libketama1 (= $version)"

# --- ketama (CLI)
pkg=ketama
begin $pkg
install -d "$stage/$pkg/usr/bin" "$stage/$pkg/usr/share/man/man1" \
  "$stage/$pkg/usr/share/bash-completion/completions" "$stage/$pkg/usr/share/zsh/vendor-completions" \
  "$stage/$pkg/usr/share/fish/vendor_completions.d"
strip --remove-section=.comment --remove-section=.note -o "$stage/$pkg/usr/bin/ketama" "$release/ketama"
chmod 0755 "$stage/$pkg/usr/bin/ketama"
gzip -9n < target/man/ketama.1 > "$stage/$pkg/usr/share/man/man1/ketama.1.gz"
install -m 0644 target/completions/ketama.bash "$stage/$pkg/usr/share/bash-completion/completions/ketama"
install -m 0644 target/completions/_ketama "$stage/$pkg/usr/share/zsh/vendor-completions/_ketama"
install -m 0644 target/completions/ketama.fish "$stage/$pkg/usr/share/fish/vendor_completions.d/ketama.fish"
chmod 0644 "$stage/$pkg/usr/share/man/man1/ketama.1.gz"
depends=$(shlib_depends "$stage/$pkg/usr/bin/ketama")
finish $pkg "$arch" "$depends"

# --- libketama-java
pkg=libketama-java
begin $pkg
install -d "$stage/$pkg/usr/share/java"
install -m 0644 target/ketama.jar "$stage/$pkg/usr/share/java/ketama-$version.jar"
ln -s "ketama-$version.jar" "$stage/$pkg/usr/share/java/ketama.jar"
finish $pkg all "libjna-java, libketama1 (>= $version)"

# --- php-ketama: the binding as it is in bindings/php (Library.php reads
# ../ketama_ffi.h), plus autoload.php, the Debian entry point, and the ini
# snippet `ketama` that preloads it for PHP-FPM, Apache and CGI (a conffile,
# enabled only by `phpenmod`; the postrm takes it out of every SAPI when the
# package is removed, since PHP does not start with a preload file missing).
pkg=php-ketama
begin $pkg
php_dir=$stage/$pkg/usr/share/php/Ketama
install -d "$php_dir/src" "$stage/$pkg/etc/php/8.2/mods-available"
install -m 0644 bindings/php/ketama.php bindings/php/compat.php bindings/php/ketama_ffi.h \
  bindings/php/preload.php "$php_dir/"
install -m 0644 bindings/php/src/*.php "$php_dir/src/"
install -m 0644 "$templates/php-ketama.autoload.php" "$php_dir/autoload.php"
install -m 0644 "$templates/php-ketama.ini" "$stage/$pkg/etc/php/8.2/mods-available/ketama.ini"
echo /etc/php/8.2/mods-available/ketama.ini > "$stage/$pkg/DEBIAN/conffiles"
install -m 0755 "$templates/php-ketama.postrm" "$stage/$pkg/DEBIAN/postrm"
finish $pkg all "php-cli (>= 2:8.2) | php8.2-cli, php-ffi, libketama1 (>= $version)"

rm -rf "$shlibdeps_dir"
