#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/pkg/test_debs.sh RESULTS_NAME BUILD [SUITE]: the Debian packages of
# BUILD/deb (make deb) proven in a fresh Debian 13 system (SUITE trixie,
# the default) or Debian 12 one (bookworm). Counts go to
# $BUILD/results/RESULTS_NAME.
#
# The system is a throwaway overlay over $IPU_CACHE/SUITE-pkg (a chroot
# with the packages' dependencies and the release's kernel headers,
# scripts/install-deps pkg-check: steps 3c and 3d), mounted in a private
# mount namespace: the cached chroot is never written, and nothing stays
# mounted when the test ends or is killed. The same packages serve both
# releases (built on Debian 12: glibc 2.36, library packages of the same
# names in 13). On bookworm, lintian (the same files) and the guest boot
# (a minute and a half more of make check) are left to the trixie run.
# There:
#   - lintian finds no error or warning but those packaging/deb/lintian-
#     suppress explains (run on the host: it is Debian 12's lintian), and
#     no hardening tag, even at the info level;
#   - apt-get installs the six packages; ipu-dkms's postinst has DKMS
#     build ipu.ko against the chroot's kernel headers and install it in
#     updates/dkms, with that kernel's vermagic; modprobe.d documents
#     exactly the parameters modinfo lists; the group ipu exists;
#   - a program compiled with `pkg-config --cflags --libs libsession`
#     runs a session on the model; ipu-run runs the executable it saved
#     from PATH and NumPy reads the right answer; ipu-info and ipu-simd
#     run from PATH; `import ipu` loads the installed libraries;
#     `man ipu-run` shows its page; the docs the tools cite are in
#     /usr/share/doc/ipu-tools;
#   - the MPI layer, under the release's Open MPI (4.1 on Debian 12, 5.0 on
#     13): a program built with `pkg-config --cflags --libs libipu-mpi`
#     runs as 2 instances under mpirun; a split program (2 replicas, 1 per
#     instance) runs from PATH as `mpirun -np 2 ipu-run` and as `ipu-run
#     --instances 2`, each instance writing what the unsplit program
#     writes for its replica; `import ipu.instances` loads libipu-mpi.so.1;
#   - a QEMU guest boots from this installed system (its kernel, DKMS's
#     ipu.ko, ipu-firmware's image, udev applying the rule, ipu-simd as its
#     unit says): alice, in group ipu, trains the demo on ipu_hw with the
#     model's checksum, bob, not in it, is refused (tests/pkg/boot-
#     installed.sh);
#   - purging the packages (and what apt pulled in for them) leaves no
#     file behind: the file lists before
#     installing and after purging are the same (outside /proc, /sys,
#     /dev, /tmp, /run and the logs and caches of dpkg and apt).
set -uo pipefail

# The second half runs again as `$0 --inner NAME BUILD PASSED FAILED` in the
# private mount namespace, with the counts so far.
INNER=0
if [ "${1:-}" = --inner ]; then
	INNER=1
	shift
fi
SELF=$(realpath "$0")
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
pkg_test_init "${1:?usage: $0 RESULTS_NAME BUILD [trixie|bookworm]}" "${2:?usage: $0 RESULTS_NAME BUILD [trixie|bookworm]}"
# (The inner run's third and fourth arguments are the counts.)
if [ $INNER = 1 ]; then SUITE=${5:-}; else SUITE=${3:-trixie}; fi
case $SUITE in
trixie | bookworm) ;;
*) echo "usage: $0 RESULTS_NAME BUILD [trixie|bookworm]" >&2; exit 2 ;;
esac
CACHE=${IPU_CACHE:-/var/cache/ipu-dev}
LOWER=$CACHE/$SUITE-pkg
W=$BUILD/pkg-chroot-$SUITE
R=$W/root
PKGS=(ipu-dkms libipu1 libipu-dev ipu-tools ipu-firmware python3-ipu libipu-mpi1 libipu-mpi-dev
	ipu-tools-mpi)

# in_root CMD...: CMD in the chroot, with a clean environment.
in_root() {
	chroot "$R" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
# snapshot: every path of the chroot but the volatile ones, one per line.
# The shadow tools' backups (/etc/group- ...) are left out too: the group
# ipu outlives the purge on purpose (ipu-dkms.prerm says why), and
# addgroup's first change of a file leaves its backup.
snapshot() {
	(cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
		-o -path ./run -o -path ./var/log -o -path ./var/cache -o -path ./var/lib/dpkg \
		-o -path ./var/lib/apt \) -prune -o \
		! -path ./etc/group- ! -path ./etc/gshadow- ! -path ./etc/passwd- ! -path ./etc/shadow- \
		-print | sort)
}

if [ $INNER = 0 ]; then
	if [ ! -e "$CACHE/$SUITE-pkg.complete" ]; then
		echo "  $NAME: SKIPPED: no $LOWER (scripts/install-deps pkg-check; IPU_NO_TRIXIE?)"
		# shellcheck disable=SC2034 # finish (lib.sh) writes it
		skipped=1
		finish
	fi
	debs=("$BUILD"/deb/*.deb)
	if [ ${#debs[@]} -ne ${#PKGS[@]} ] || [ ! -e "${debs[0]}" ]; then
		bad "make deb built ${#PKGS[@]} packages" "$(ls "$BUILD/deb" 2>&1 | tr '\n' ' ')"
		finish
	fi
	ok "make deb built ${#PKGS[@]} packages"
	# lintian once, on the trixie run (the bookworm run has the same files).
	if [ "$SUITE" = trixie ]; then
		start=$(date +%s)
		if lintian --display-info --fail-on error,warning \
			--suppress-tags-from-file packaging/deb/lintian-suppress \
			"${debs[@]}" >"$BUILD/deb/lintian.log" 2>&1; then
			ok "lintian: no error or warning but those explained ($(($(date +%s) - start)) s)"
		else
			grep -E '^[EW]: ' "$BUILD/deb/lintian.log" | head -n 30
			bad "lintian: no error or warning but those explained" "log: $BUILD/deb/lintian.log"
		fi
		# Its info-level hardening tags (no relro, bindnow, PIE, fortified
		# functions): tests/pkg/test_hardening.sh reads the same from the files.
		if grep -E '^[EWI]: .*hardening-no-' "$BUILD/deb/lintian.log"; then
			bad "lintian: no hardening-no-* tag"
		else
			ok "lintian: no hardening-no-* tag"
		fi
	fi
	rm -rf "$W"
	mkdir -p "$W/upper" "$W/work" "$R"
	unshare --mount --propagation private "$SELF" --inner "$NAME" "$BUILD" \
		"$passed" "$failed" "$SUITE"
	st=$?
	rm -rf "$W"
	exit $st
fi

# --- inside the private mount namespace -------------------------------------
passed=$3 failed=$4
mount -t overlay overlay -o "lowerdir=$LOWER,upperdir=$W/upper,workdir=$W/work" "$R" ||
	{ bad "overlay over $LOWER"; finish; }
mount -t proc proc "$R/proc" && mount -t sysfs sysfs "$R/sys" ||
	{ bad "proc and sysfs in the chroot"; finish; }
# The release DKMS builds for: the chroot's headers (trixie's come from
# the trixie chroot it was copied from).
if [ "$SUITE" = trixie ]; then
	KVER=$(cat "$CACHE/trixie.kernelrelease")
else
	KVER=$(cat "$CACHE/$SUITE-pkg.kernelrelease")
fi
T=$R/tmp/pkg-test
mkdir -p "$T"
cp "$BUILD"/deb/*.deb tests/pkg/session_hello.c tests/pkg/mpi_hello.c "$T/"
# shellcheck source=boot-installed.sh
. tests/pkg/boot-installed.sh
if [ "$SUITE" = trixie ]; then
	boot_installed_users "$R" >"$W/users.log" 2>&1 || { cat "$W/users.log"; bad "useradd alice bob"; }
fi
snapshot >"$W/before"

start=$(date +%s)
debs=()
for f in "$T"/*.deb; do
	debs+=("/tmp/pkg-test/$(basename "$f")")
done
if in_root apt-get install -y -q --no-install-recommends "${debs[@]}" >"$W/install.log" 2>&1; then
	ok "apt-get install ${PKGS[*]} ($(($(date +%s) - start)) s, DKMS build included)"
else
	tail -n 40 "$W/install.log"
	bad "apt-get install ${PKGS[*]}"
	finish
fi

# DKMS: built and installed for the chroot's kernel, in updates/dkms.
status=$(in_root dkms status ipu 2>&1)
if grep -q "^ipu/.*, $KVER, x86_64: installed" <<<"$status"; then
	ok "dkms status: ipu installed for $KVER"
else
	echo "$status"
	bad "dkms status: ipu installed for $KVER"
fi
ko=$(cd "$R" && ls "lib/modules/$KVER/updates/dkms/"ipu.ko* 2>/dev/null | head -n 1)
vermagic=$( [ -n "$ko" ] && in_root modinfo -F vermagic "/$ko")
if [ -n "$ko" ] && [ "${vermagic%% *}" = "$KVER" ]; then
	ok "/$ko has vermagic $KVER"
else
	bad "ipu.ko in /lib/modules/$KVER/updates/dkms with vermagic $KVER" "${ko:-none}: $vermagic"
fi
mparams=$( [ -n "$ko" ] && in_root modinfo -F parm "/$ko" | sed 's/:.*//' | sort)
dparams=$(sed -n 's/^#options ipu \([a-z_0-9]*\)=.*/\1/p' "$R/usr/lib/modprobe.d/ipu.conf" | sort)
if [ -n "$mparams" ] && [ "$mparams" = "$dparams" ]; then
	ok "modprobe.d documents modinfo's parameters: $(echo "$mparams" | tr '\n' ' ')"
else
	bad "modprobe.d documents modinfo's parameters" "modinfo: $(echo "$mparams" | tr '\n' ' ')/ modprobe.d: $(echo "$dparams" | tr '\n' ' ')"
fi
if in_root getent group ipu >/dev/null; then
	ok "group ipu created"
else
	bad "group ipu created"
fi
if grep -q 'GROUP="ipu", MODE="0660"' "$R/usr/lib/udev/rules.d/70-ipu.rules" 2>/dev/null; then
	ok "udev rule /usr/lib/udev/rules.d/70-ipu.rules"
else
	bad "udev rule /usr/lib/udev/rules.d/70-ipu.rules"
fi

# A developer's program, built with pkg-config alone, and the tools on PATH.
if in_root sh -c 'cd /tmp/pkg-test && cc -std=gnu11 -Wall -Wextra -Werror session_hello.c \
	-o hello $(pkg-config --cflags --libs libsession)' >"$W/cc.log" 2>&1; then
	ok "cc session_hello.c \$(pkg-config --cflags --libs libsession)"
else
	cat "$W/cc.log"
	bad "cc session_hello.c \$(pkg-config --cflags --libs libsession)"
fi
if in_root env IPU_DEVICE=model /tmp/pkg-test/hello --save /tmp/pkg-test/hello.ipux \
	>"$W/hello.log" 2>&1 && grep -q '^session_hello: ok$' "$W/hello.log"; then
	ok "session_hello runs a session on the model"
else
	cat "$W/hello.log"
	bad "session_hello runs a session on the model"
fi
if in_root sh -c 'cd /tmp/pkg-test &&
	python3 -c "import numpy as np; np.save(\"x.npy\", np.array([2, 3, 4, -1], np.float32))" &&
	[ "$(command -v ipu-run)" = /usr/bin/ipu-run ] &&
	ipu-run hello.ipux --input x=x.npy --output y=y.npy --device ipu_model &&
	python3 -c "import numpy as np, sys; y = np.load(\"y.npy\"); print(y); sys.exit(not (y == [4, -4, 4, 1]).all())"' \
	>"$W/run.log" 2>&1; then
	ok "ipu-run from PATH runs the saved program: $(tail -n 1 "$W/run.log")"
else
	cat "$W/run.log"
	bad "ipu-run from PATH runs the saved program"
fi
if in_root sh -c '[ "$(command -v ipu-info)" = /usr/bin/ipu-info ] && ipu-info --model' \
	>"$W/info.log" 2>&1 && grep -q 'model' "$W/info.log"; then
	ok "ipu-info --model from PATH"
else
	cat "$W/info.log"
	bad "ipu-info --model from PATH"
fi
if in_root sh -c '[ "$(command -v ipu-simd)" = /usr/sbin/ipu-simd ] && ipu-simd --help' >/dev/null 2>&1; then
	ok "ipu-simd --help from PATH"
else
	bad "ipu-simd --help from PATH"
fi
if in_root python3 -c 'import ipu, sys; print(ipu.__file__); sys.exit(not ipu.__file__.startswith("/usr/lib/python3/dist-packages/"))' \
	>"$W/py.log" 2>&1; then
	ok "import ipu: $(cat "$W/py.log")"
else
	cat "$W/py.log"
	bad "import ipu"
fi
if in_root env MANPAGER=cat MANWIDTH=80 man ipu-run 2>"$W/man.err" | grep -q 'run a saved IPU executable on NumPy'; then
	ok "man ipu-run shows its page"
else
	cat "$W/man.err"
	bad "man ipu-run shows its page"
fi
# The pages the tools, headers and man pages cite, as the tree has them.
for f in session.md ipu-info.md ipu-bringup.md hardware.md instances.md sim-control.md; do
	check "/usr/share/doc/ipu-tools/$f" cmp -s "$(dirname "$0")/../../docs/$f" \
		"$R/usr/share/doc/ipu-tools/$f"
done

# The MPI layer (ipu-tools-mpi, libipu-mpi1, libipu-mpi-dev), on loopback.
# Open MPI's shared-memory transport wants a /dev/shm. The ranks' messages
# stay on loopback; the launcher's own channel is left to pick its
# interface (Open MPI 5's PRRTE finds none with oob_tcp_if_include=lo).
mkdir -p "$R/dev/shm" && mount -t tmpfs tmpfs "$R/dev/shm"
mpi_start=$(date +%s)
MPIENV=(OMPI_MCA_btl_tcp_if_include=lo)
if in_root sh -c 'cd /tmp/pkg-test && cc -std=gnu11 -Wall -Wextra -Werror mpi_hello.c \
	-o mpi_hello $(pkg-config --cflags --libs libipu-mpi)' >"$W/cc-mpi.log" 2>&1; then
	ok "cc mpi_hello.c \$(pkg-config --cflags --libs libipu-mpi)"
else
	cat "$W/cc-mpi.log"
	bad "cc mpi_hello.c \$(pkg-config --cflags --libs libipu-mpi)"
fi
if in_root env "${MPIENV[@]}" timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 \
	/tmp/pkg-test/mpi_hello >"$W/mpi-hello.log" 2>&1 &&
	[ "$(grep -c '^mpi_hello: instance [01] of 2$' "$W/mpi-hello.log")" = 2 ]; then
	ok "mpirun -np 2 mpi_hello: $(grep -c '^mpi_hello' "$W/mpi-hello.log") instances of 2"
else
	cat "$W/mpi-hello.log"
	bad "mpirun -np 2 mpi_hello: 2 instances of 2"
fi
# A split program (tests/mpi/test_mpi.sh's: y = relu(mean of every
# replica's x @ w + b)), 2 replicas, unsplit and 1 per instance, written by
# the tree's make_example_exe; instance i must write the unsplit run's
# replica i. Files mx*, my*: the guest boot reads session_hello's x.npy.
MKEXE=$BUILD/examples/make_example_exe
if "$MKEXE" --replicas 2 --mean-x "$T/one.ipux" >"$W/mkexe.log" 2>&1 &&
	"$MKEXE" --replicas 2 --mean-x --instance-replicas 1 "$T/split.ipux" >>"$W/mkexe.log" 2>&1 &&
	in_root sh -c 'cd /tmp/pkg-test && python3 -c "import numpy as np
x = np.random.default_rng(2).standard_normal((2, 4, 3)).astype(np.float32)
np.save(\"mx.npy\", x)
for i in range(2): np.save(\"mx%d.npy\" % i, x[i])" &&
	ipu-run one.ipux -i x=mx.npy -o y=mref.npy' >>"$W/mkexe.log" 2>&1; then
	same_slices() {
		in_root sh -c 'cd /tmp/pkg-test && python3 -c "import numpy as np, sys
y = np.load(\"mref.npy\")
sys.exit(any(y[i].tobytes() != np.load(\"my%d.npy\" % i).tobytes() for i in range(2)))" && rm -f my0.npy my1.npy'
	}
	if in_root env "${MPIENV[@]}" sh -c 'cd /tmp/pkg-test && timeout 120 mpirun --allow-run-as-root \
		--oversubscribe -np 2 ipu-run split.ipux -i "x=mx{instance}.npy" -o "y=my{instance}.npy"' \
		>"$W/mpirun.log" 2>&1 && same_slices >>"$W/mpirun.log" 2>&1; then
		ok "mpirun -np 2 ipu-run from PATH: each instance writes its replica of the unsplit run"
	else
		cat "$W/mpirun.log"
		bad "mpirun -np 2 ipu-run from PATH"
	fi
	if in_root env "${MPIENV[@]}" sh -c 'cd /tmp/pkg-test && timeout 120 ipu-run --instances 2 \
		split.ipux -i "x=mx{instance}.npy" -o "y=my{instance}.npy"' >"$W/instances.log" 2>&1 &&
		grep -q 'mpirun .*-np 2 /usr/bin/ipu-run-mpi --instances 2' "$W/instances.log" &&
		same_slices >>"$W/instances.log" 2>&1; then
		ok "ipu-run --instances 2 runs mpirun over /usr/bin/ipu-run-mpi, same replicas"
	else
		cat "$W/instances.log"
		bad "ipu-run --instances 2 runs mpirun over /usr/bin/ipu-run-mpi"
	fi
else
	cat "$W/mkexe.log"
	bad "a split program and the unsplit run's outputs" "$MKEXE (make pkg-check builds it)"
fi
if in_root python3 -c 'import ipu.instances; ipu.instances._load(); print("libipu-mpi.so.1 loaded")' \
	>"$W/py-mpi.log" 2>&1; then
	ok "ipu.instances loads the installed libipu-mpi.so.1 (MPI layer: $(($(date +%s) - mpi_start)) s)"
else
	cat "$W/py-mpi.log"
	bad "ipu.instances loads the installed libipu-mpi.so.1"
fi
umount "$R/dev/shm"

# A guest booted from this installed system (tests/pkg/boot-installed.sh).
[ "$SUITE" != trixie ] || boot_installed "$R" "$KVER"

# Purge: back to the file list from before the install. --autoremove: the
# libraries apt pulled in for them (libjson-c5 for ipu-trace, when the
# chroot lacks it) go too, as they came; what was there before stays
# (installed by hand, so never autoremoved).
rm -rf "$T"
if in_root apt-get purge --autoremove -y -q "${PKGS[@]}" >"$W/purge.log" 2>&1; then
	ok "apt-get purge --autoremove ${PKGS[*]}"
else
	tail -n 30 "$W/purge.log"
	bad "apt-get purge --autoremove ${PKGS[*]}"
fi
snapshot >"$W/after"
if diff -u "$W/before" "$W/after" >"$W/diff"; then
	ok "purge leaves no file behind ($(wc -l <"$W/before") paths compared)"
else
	head -n 40 "$W/diff"
	bad "purge leaves no file behind" "diff above"
fi
finish
