#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/pkg/test_install.sh RESULTS_NAME BUILD: `make install` into a
# DESTDIR and `make uninstall` from it, checked as a user of the installed
# stack would find it. Counts go to $BUILD/results/RESULTS_NAME.
#
# What it guards:
#   - every shared library is lib*.so.1 with that soname, its lib*.so
#     symlink points at it, and the static libraries are there;
#   - the public headers are under include/ipu/ (not the test hooks of
#     testing.h) and the UAPI header is include/linux/ipu.h;
#   - the .pc files: tests/pkg/session_hello.c builds with nothing but
#     `pkg-config --cflags --libs libsession` against the staged tree (no
#     -I of this repository) and runs a session on the model; `--static`
#     links it against the archives;
#   - tools, ipu-simd, the firmware image, one man page per tool and
#     libipu(3)/libsession(3) (each renders with man), the udev rule,
#     modprobe.d naming every module parameter, the systemd unit naming
#     the installed ipu-simd;
#   - the docs the headers, man pages, tools and Python package cite
#     (docs/*.md), session.md and the JSON schemas among them, in
#     share/doc/ipu-tools;
#   - the MPI layer (WITH_MPI=1): libipu-mpi.so.1 exporting only
#     ipu/mpi.h's functions, at LIBIPU_MPI_1.0, its archive and .pc file
#     (tests/pkg/mpi_hello.c builds with `pkg-config ... libipu-mpi`
#     alone), ipu-run-mpi next to ipu-run, their man pages; fw_gather.h,
#     the wire between ipu-simd and libsession, not installed; WITH_MPI=0
#     installs none of it;
#   - uninstall leaves every file and link as before install, a file of
#     someone else's in the same directories included;
#   - with the default PREFIX (/usr/local), the udev rule, modprobe.d file
#     and firmware image land where udev, modprobe and the kernel read them
#     (/etc/udev/rules.d, /etc/modprobe.d, /lib/firmware), nothing under
#     /usr/local/lib/{udev,modprobe.d,firmware}; UDEVRULESDIR, MODPROBEDIR
#     and FIRMWAREDIR override them; uninstall removes them.
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
pkg_test_init "${1:?usage: $0 RESULTS_NAME BUILD}" "${2:?usage: $0 RESULTS_NAME BUILD}"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=$T/root
MA=$(gcc -print-multiarch)
LIB=/usr/lib/$MA
VARS=(BUILD="$BUILD" PREFIX=/usr LIBDIR="$LIB" WITH_MPI=1 DESTDIR="$D")

# Someone else's files where ours go: uninstall must leave them.
mkdir -p "$D/usr/bin" "$D$LIB/pkgconfig" "$D/usr/include/linux"
echo other >"$D/usr/bin/other-tool"
echo other >"$D$LIB/pkgconfig/other.pc"
echo other >"$D/usr/include/linux/other.h"
# Files and links: directories install made stay, as automake's
# uninstall leaves them (they may be shared with other software).
snapshot() { (cd "$D" && find . ! -type d | sort); }
snapshot >"$T/before"

if ! make -s --no-print-directory "${VARS[@]}" install >"$T/install.log" 2>&1; then
	tail -n 30 "$T/install.log"
	bad "make install" "log above"
	finish
fi
ok "make install"

# --- libraries ---------------------------------------------------------------
for l in ipufw ipu ipuir session; do
	so=$D$LIB/lib$l.so.1
	soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	check "lib$l.so.1 soname" [ "$soname" = "lib$l.so.1" ]
	check "lib$l.so -> lib$l.so.1" [ "$(readlink "$D$LIB/lib$l.so")" = "lib$l.so.1" ]
	check "lib$l.a" [ -f "$D$LIB/lib$l.a" ]
	check "lib$l.pc" [ -f "$D$LIB/pkgconfig/lib$l.pc" ]
done

# --- headers -------------------------------------------------------------------
for h in ipu.h session.h ir.h exe.h dtype.h; do
	check "include/ipu/$h" [ -f "$D/usr/include/ipu/$h" ]
done
check "include/linux/ipu.h (UAPI)" cmp -s include/uapi/linux/ipu.h "$D/usr/include/linux/ipu.h"
check "no include/ipu/testing.h" [ ! -e "$D/usr/include/ipu/testing.h" ]
check "no include/ipu/fw_gather.h (ipu-simd <-> libsession only)" [ ! -e "$D/usr/include/ipu/fw_gather.h" ]

# --- pkg-config: a program built from the staged tree only -------------------
# The sysroot prefixes -I and -L with $D, as a cross build does; the
# system's own .pc files (liburing, for Requires.private) stay visible.
pc() {
	PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_LIBDIR=$D$LIB/pkgconfig:$LIB/pkgconfig:/usr/share/pkgconfig \
		pkg-config "$@"
}
flags=$(pc --cflags --libs libsession) && ok "pkg-config --cflags --libs libsession: $flags" ||
	bad "pkg-config --cflags --libs libsession"
# -nostdinc would drop libc too: the repository's include/ is simply never
# named, so only the staged headers can satisfy <ipu/session.h>.
# shellcheck disable=SC2086
# LD_LIBRARY_PATH: the linker looks there (not in -L) for the libraries
# the named ones need, as it looks in /usr/lib/$MA once installed.
if LD_LIBRARY_PATH=$D$LIB gcc -std=gnu11 -Wall -Wextra -Werror tests/pkg/session_hello.c \
	-o "$T/hello" $flags 2>"$T/cc.log"; then
	ok "cc session_hello.c \$(pkg-config ... libsession)"
	if LD_LIBRARY_PATH=$D$LIB IPU_DEVICE=model "$T/hello" >"$T/hello.log" 2>&1 &&
		grep -q '^session_hello: ok$' "$T/hello.log"; then
		ok "session_hello runs a session on the model (shared libraries)"
	else
		cat "$T/hello.log"
		bad "session_hello runs a session on the model (shared libraries)"
	fi
	# It must have used the staged libraries, not some other copy.
	check "session_hello loads the staged libsession.so.1" \
		grep -q "$D$LIB/libsession.so.1" <(LD_LIBRARY_PATH=$D$LIB ldd "$T/hello")
else
	cat "$T/cc.log"
	bad "cc session_hello.c \$(pkg-config ... libsession)"
fi
# --static: Libs.private and Requires.private complete. A second sysroot
# holds only the archives (no .so to prefer), as on a system with libipu-dev
# and not libipu1; the system's own libraries stay shared.
S=$T/static
mkdir -p "$S$LIB" && cp -a "$D/usr/include" "$S/usr/" && cp -a "$D$LIB"/*.a "$D$LIB/pkgconfig" "$S$LIB/"
sflags=$(PKG_CONFIG_SYSROOT_DIR=$S PKG_CONFIG_LIBDIR=$S$LIB/pkgconfig:$LIB/pkgconfig:/usr/share/pkgconfig \
	pkg-config --static --cflags --libs libsession) || sflags=
# shellcheck disable=SC2086
if [ -n "$sflags" ] && gcc -std=gnu11 tests/pkg/session_hello.c -o "$T/hello-static" $sflags \
	2>"$T/cc-static.log" && ! ldd "$T/hello-static" | grep -q 'libsession\|libipu' &&
	IPU_DEVICE=model "$T/hello-static" >"$T/hello-static.log" 2>&1; then
	ok "pkg-config --static: session_hello linked against the archives runs"
else
	echo "flags: $sflags"
	cat "$T/cc-static.log" "$T/hello-static.log" 2>/dev/null
	bad "pkg-config --static: session_hello linked against the archives runs"
fi

# --- the MPI layer -------------------------------------------------------------
so=$D$LIB/libipu-mpi.so.1
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
check "libipu-mpi.so.1 soname" [ "$soname" = libipu-mpi.so.1 ]
check "libipu-mpi.so -> libipu-mpi.so.1" [ "$(readlink "$D$LIB/libipu-mpi.so")" = libipu-mpi.so.1 ]
check "libipu-mpi.a" [ -f "$D$LIB/libipu-mpi.a" ]
check "include/ipu/mpi.h" cmp -s include/ipu/mpi.h "$D/usr/include/ipu/mpi.h"
# Exported: the functions ipu/mpi.h declares, each at LIBIPU_MPI_1.0.
want=$(sed -n 's/^[a-z_0-9 ]* \**\(ipu_mpi_[a-z_]*\)(.*/\1@@LIBIPU_MPI_1.0/p' include/ipu/mpi.h | sort)
got=$(readelf -W --dyn-syms "$so" 2>/dev/null | awk '$7 != "UND" && $5 == "GLOBAL" && $8 !~ /^LIBIPU_MPI/ { print $8 }' | sort)
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "libipu-mpi.so.1 exports ipu/mpi.h's $(echo "$want" | wc -l) functions at LIBIPU_MPI_1.0"
else
	bad "libipu-mpi.so.1 exports ipu/mpi.h's functions at LIBIPU_MPI_1.0" \
		"want: $(echo "$want" | tr '\n' ' ')/ got: $(echo "$got" | tr '\n' ' ')"
fi
# shellcheck disable=SC2086
if mflags=$(pc --cflags --libs libipu-mpi) &&
	LD_LIBRARY_PATH=$D$LIB gcc -std=gnu11 -Wall -Wextra -Werror tests/pkg/mpi_hello.c \
		-o "$T/mpi_hello" $mflags 2>"$T/cc-mpi.log"; then
	ok "cc mpi_hello.c \$(pkg-config ... libipu-mpi): $mflags"
else
	cat "$T/cc-mpi.log"
	bad "cc mpi_hello.c \$(pkg-config ... libipu-mpi)"
fi
check "bin/ipu-run-mpi next to bin/ipu-run" [ -x "$D/usr/bin/ipu-run-mpi" ]

# --- tools, daemon, firmware, man pages, system files ------------------------
for t in bin/ipu-run bin/ipu-info bin/ipu-emu bin/ipu-mkfw sbin/ipu-simd sbin/ipu-bringup; do
	check "usr/$t" [ -x "$D/usr/$t" ]
done
check "ipu-run --help" "$D/usr/bin/ipu-run" --help >/dev/null
check "firmware ipu/ipu-fw.bin" cmp -s "$BUILD/firmware/ipu/ipu-fw.bin" "$D/usr/lib/firmware/ipu/ipu-fw.bin"
for m in man1/ipu-run.1 man1/ipu-info.1 man1/ipu-emu.1 man1/ipu-mkfw.1 man8/ipu-simd.8 man8/ipu-bringup.8 \
	man3/libipu.3 man3/libsession.3 man1/ipu-run-mpi.1 man3/libipu-mpi.3; do
	page=$D/usr/share/man/$m
	n=$(basename "$m" | sed 's/\.[0-9]$//')
	check "man $m renders its NAME" grep -q -i "^ *$n" <(MANWIDTH=80 man -l "$page" 2>/dev/null | col -b)
done
rule=$D/usr/lib/udev/rules.d/70-ipu.rules
check "udev rule: GROUP=ipu MODE=0660" grep -q 'SUBSYSTEM=="ipu".*GROUP="ipu".*MODE="0660"' "$rule"
check "udev rule: no mode open to others" \
	bash -c "! grep -v '^#' '$rule' | grep -q -E 'MODE=\"0?[0-7][0-7][1-7]\"'"
# Every module_param of the driver is documented in modprobe.d (modinfo of
# a built ipu.ko lists the same names; tests/pkg/test_debs.sh compares them).
params=$(sed -n 's/^module_param(\([a-z_0-9]*\),.*/\1/p' driver/*.c | sort -u)
for p in $params; do
	check "modprobe.d documents $p" grep -q "^#options ipu $p=" "$D/usr/lib/modprobe.d/ipu.conf"
done
unit=$D/usr/lib/systemd/system/ipu-simd.service
check "ipu-simd.service runs /usr/sbin/ipu-simd" grep -q '^ExecStart=/usr/sbin/ipu-simd$' "$unit"
check "python package ipu/__init__.py" [ -f "$D/usr/lib/python3/dist-packages/ipu/__init__.py" ]

# --- docs ------------------------------------------------------------------------
# Every page that an installed header, man page, tool or the Python package
# cites (docs/X.md), as the tree has it, in share/doc/ipu-tools: a citation
# added without installing its page fails here. session.md (session.h's
# S01-S26) and the --json schemas are named so that they cannot drop out of
# the citations unnoticed.
cited=$( (grep -oh 'docs/[A-Za-z0-9_-]*\.md' include/ipu/*.h packaging/man/* userspace/tools/*.c \
	userspace/python/ipu/*.py; printf '%s\n' docs/session.md docs/ipu-info.md docs/ipu-bringup.md) |
	sort -u)
for f in $cited; do
	check "$f in share/doc/ipu-tools" cmp -s "$f" "$D/usr/share/doc/ipu-tools/$(basename "$f")"
done

# --- uninstall -------------------------------------------------------------------
if make -s --no-print-directory "${VARS[@]}" uninstall >"$T/uninstall.log" 2>&1; then
	ok "make uninstall"
else
	tail -n 20 "$T/uninstall.log"
	bad "make uninstall"
fi
snapshot >"$T/after"
check "install then uninstall: someone else's files kept" [ -s "$T/after" ]
if diff -u "$T/before" "$T/after" >"$T/diff"; then
	ok "uninstall leaves the tree as before install"
else
	head -n 40 "$T/diff"
	bad "uninstall leaves the tree as before install" "diff above"
fi

# --- the default PREFIX (/usr/local) -----------------------------------------
# The kernel reads firmware only from /lib/firmware, and older udev and kmod
# never read /usr/local/lib: whatever PREFIX, the rule, the options and the
# image go where they are read (/etc for a local install; packaging/
# install.mk says why), each overridable; uninstall removes them again.
L=$T/local
mkdir -p "$L"
(cd "$L" && find . ! -type d | sort) >"$T/local-before"
if make -s --no-print-directory BUILD="$BUILD" DESTDIR="$L" install >"$T/local.log" 2>&1; then
	ok "make install (default PREFIX)"
	check "default PREFIX: udev rule in /etc/udev/rules.d" [ -f "$L/etc/udev/rules.d/70-ipu.rules" ]
	check "default PREFIX: modprobe.d file in /etc/modprobe.d" [ -f "$L/etc/modprobe.d/ipu.conf" ]
	check "default PREFIX: firmware in /lib/firmware" [ -f "$L/lib/firmware/ipu/ipu-fw.bin" ]
	check "default PREFIX: nothing where udev, kmod or the kernel may not look" \
		bash -c "! ls -d '$L'/usr/local/lib/udev '$L'/usr/local/lib/modprobe.d '$L'/usr/local/lib/firmware 2>/dev/null | grep -q ."
	if [ -x "$L/usr/local/bin/ipu-run" ] && [ -f "$L/usr/local/lib/libsession.so.1" ] &&
		[ -f "$L/usr/local/share/doc/ipu-tools/session.md" ] &&
		grep -q '^ExecStart=/usr/local/sbin/ipu-simd$' "$L/usr/local/lib/systemd/system/ipu-simd.service"; then
		ok "default PREFIX: the rest under /usr/local"
	else
		bad "default PREFIX: the rest under /usr/local"
	fi
	make -s --no-print-directory BUILD="$BUILD" DESTDIR="$L" uninstall >>"$T/local.log" 2>&1
	check "default PREFIX: uninstall removes every file" \
		diff -u "$T/local-before" <(cd "$L" && find . ! -type d | sort)
else
	tail -n 20 "$T/local.log"
	bad "make install (default PREFIX)"
fi
O=$T/override
if make -s --no-print-directory BUILD="$BUILD" DESTDIR="$O" UDEVRULESDIR=/x/rules.d \
	MODPROBEDIR=/x/modprobe.d FIRMWAREDIR=/x/firmware install >"$T/override.log" 2>&1 &&
	[ -f "$O/x/rules.d/70-ipu.rules" ] && [ -f "$O/x/modprobe.d/ipu.conf" ] &&
	[ -f "$O/x/firmware/ipu/ipu-fw.bin" ] && [ ! -e "$O/etc" ] && [ ! -e "$O/lib" ]; then
	ok "UDEVRULESDIR, MODPROBEDIR and FIRMWAREDIR override the defaults"
else
	tail -n 20 "$T/override.log"
	bad "UDEVRULESDIR, MODPROBEDIR and FIRMWAREDIR override the defaults"
fi
# Without Open MPI (WITH_MPI=0, the default when ompi-c is missing): the
# rest installs, nothing of the MPI layer, and no MPI is built for it.
N=$T/nompi
if make -s --no-print-directory BUILD="$BUILD" DESTDIR="$N" WITH_MPI=0 install >"$T/nompi.log" 2>&1 &&
	[ -x "$N/usr/local/bin/ipu-run" ]; then
	mpi=$(cd "$N" && find . -name '*mpi*')
	check "WITH_MPI=0: the rest installed, nothing of the MPI layer${mpi:+ ($mpi)}" [ -z "$mpi" ]
else
	tail -n 20 "$T/nompi.log"
	bad "make install WITH_MPI=0"
fi

finish
