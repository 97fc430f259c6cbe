# SPDX-License-Identifier: GPL-2.0
#
# packaging/install.mk (included by the Makefile): `make install` and
# `make uninstall`.
#
#   make install   PREFIX=/usr/local DESTDIR=   (the GNU names; each *DIR below
#                  can be overridden, e.g. LIBDIR=/usr/lib/x86_64-linux-gnu)
#   make uninstall the same variables: removes exactly what install put there
#   make install-dkms  DKMSSRCDIR=/usr/src: ipu.ko's sources for DKMS
#   WITH_MPI=1|0   the MPI layer (libipu-mpi, ipu-run-mpi) or not; by default
#                  when Open MPI's development files are installed
#
# Why one list: install and uninstall both walk INSTALL_LIST (and
# INSTALL_LINKS), so uninstall can never miss a file install added or
# remove one it did not; tests/pkg/test_install.sh compares the trees.
# Each entry is MODE:SOURCE:DESTINATION (a path under $(DESTDIR)).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# The files the kernel, udev and modprobe read do not follow PREFIX: they
# go where those look whatever PREFIX is. request_firmware() reads only
# /lib/firmware (and firmware_class.path), never /usr/local/lib/firmware;
# only recent udev and kmod read /usr/local/lib/{udev/rules.d,modprobe.d}
# (Debian 12's systemd 252 and kmod 30 do; eudev and older ones do not),
# and /etc is where the administrator's own rules and options live. So:
#   PREFIX=/usr (the packages): the distribution's places, /usr/lib/udev/
#     rules.d, /usr/lib/modprobe.d, /usr/lib/firmware;
#   any other PREFIX (a local `make install`, /usr/local by default): the
#     administrator's, /etc/udev/rules.d and /etc/modprobe.d (FHS: local
#     configuration of this host), and the kernel's /lib/firmware.
# Each stays overridable (UDEVRULESDIR=..., MODPROBEDIR=..., FIRMWAREDIR=...).
# systemd reads /usr/local/lib/systemd/system: the unit follows PREFIX.
ifeq ($(patsubst %/,%,$(PREFIX)),/usr)
FIRMWAREDIR ?= /usr/lib/firmware
UDEVRULESDIR ?= /usr/lib/udev/rules.d
MODPROBEDIR ?= /usr/lib/modprobe.d
else
FIRMWAREDIR ?= /lib/firmware
UDEVRULESDIR ?= /etc/udev/rules.d
MODPROBEDIR ?= /etc/modprobe.d
endif
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
# The pages the tools, headers and man pages cite (docs/X.md): in the
# ipu-tools package's doc directory, and at the same place under any PREFIX,
# so that a citation reads the same whichever way the stack was installed.
DOCDIR ?= $(PREFIX)/share/doc/ipu-tools
DKMSSRCDIR ?= /usr/src

# The stack's version: the packages', DKMS's and the .pc files'. The
# libraries' ABI is their soname (SO_VERSION), which changes only when an
# interface does.
IPU_VERSION := 1.0.0

# The MPI layer (docs/instances.md): libipu-mpi, its header and .pc file,
# ipu-run-mpi and their man pages. Installed when Open MPI's development
# files are there (pkg-config ompi-c, as the Makefile's MPI_CFLAGS), so a
# host without Open MPI still installs the rest; WITH_MPI=1 demands it
# (scripts/build-debs: a package build must not silently lose a package),
# WITH_MPI=0 leaves it out.
WITH_MPI ?= $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1 || echo 0)
MPI_MAN := packaging/man/ipu-run-mpi.1 packaging/man/libipu-mpi.3
PC_NAMES := libipufw libipu libipuir libsession
PC_FILES := $(PC_NAMES:%=$(O)/pkgconfig/%.pc)
MAN1 := $(filter-out $(MPI_MAN),$(sort $(wildcard packaging/man/*.1)))
MAN3 := $(filter-out $(MPI_MAN),$(sort $(wildcard packaging/man/*.3)))
MAN8 := $(sort $(wildcard packaging/man/*.8))
# testing.h declares the libraries' test hooks (the "__" symbols), which
# only this tree's unit tests may call, and fw_gather.h is the wire
# between ipu-simd and libsession (both parts of this stack, built from
# this tree): neither is an application interface, neither is installed.
# mpi.h goes with the MPI layer.
PUBLIC_HEADERS := $(filter-out include/ipu/testing.h include/ipu/fw_gather.h include/ipu/mpi.h,\
	$(sort $(wildcard include/ipu/*.h)))
PY_FILES := $(sort $(shell find userspace/python/ipu -name '*.py'))
STATIC_LIBS := $(LIBSESSION) $(LIBIPUIR) $(LIBIPU) $(LIBIPUFW)
# session.md: what session.h's S01-S26 say; ipu-info.md and ipu-bringup.md:
# the schemas --json names; hardware.md: ipu-emu(1), ipu-info's names;
# instances.md: ipu-run --instances, the Python package's errors;
# sim-control.md: the simulated IPUs' parameters and files; trace.md: what
# ipu-trace(1) and IPU_TRACE's timeline hold.
DOCS := $(addprefix docs/,session.md ipu-info.md ipu-bringup.md hardware.md \
	instances.md sim-control.md trace.md)

INSTALL_LIST := \
	$(foreach f,$(ALL_SOS),0644:$(f):$(LIBDIR)/$(notdir $(f))) \
	$(foreach f,$(STATIC_LIBS),0644:$(f):$(LIBDIR)/$(notdir $(f))) \
	$(foreach f,$(PC_FILES),0644:$(f):$(PKGCONFIGDIR)/$(notdir $(f))) \
	$(foreach f,$(PUBLIC_HEADERS),0644:$(f):$(INCLUDEDIR)/ipu/$(notdir $(f))) \
	0644:include/uapi/linux/ipu.h:$(INCLUDEDIR)/linux/ipu.h \
	0755:$(O)/tools/ipu-run:$(BINDIR)/ipu-run \
	0755:$(O)/tools/ipu-info:$(BINDIR)/ipu-info \
	0755:$(O)/tools/ipu-trace:$(BINDIR)/ipu-trace \
	0755:$(O)/tools/ipu-bringup:$(SBINDIR)/ipu-bringup \
	0755:$(EMU):$(BINDIR)/ipu-emu \
	0755:$(MKFW):$(BINDIR)/ipu-mkfw \
	0755:$(SIMD):$(SBINDIR)/ipu-simd \
	0644:$(FW_IMAGE):$(FIRMWAREDIR)/ipu/ipu-fw.bin \
	$(foreach f,$(MAN1),0644:$(f):$(MANDIR)/man1/$(notdir $(f))) \
	$(foreach f,$(MAN3),0644:$(f):$(MANDIR)/man3/$(notdir $(f))) \
	$(foreach f,$(MAN8),0644:$(f):$(MANDIR)/man8/$(notdir $(f))) \
	$(foreach f,$(DOCS),0644:$(f):$(DOCDIR)/$(notdir $(f))) \
	0644:packaging/udev/70-ipu.rules:$(UDEVRULESDIR)/70-ipu.rules \
	0644:packaging/modprobe.d/ipu.conf:$(MODPROBEDIR)/ipu.conf \
	0644:$(O)/systemd/ipu-simd.service:$(SYSTEMDUNITDIR)/ipu-simd.service \
	$(foreach f,$(PY_FILES),0644:$(f):$(PYTHONDIR)/$(patsubst userspace/python/%,%,$(f)))
INSTALL_SOS := $(ALL_SOS)
ifeq ($(WITH_MPI),1)
ifneq ($(shell pkg-config --exists ompi-c 2>/dev/null && echo y),y)
$(error WITH_MPI=1: no Open MPI development files (pkg-config ompi-c; Debian: libopenmpi-dev))
endif
INSTALL_SOS += $(LIBIPUMPI_SO)
INSTALL_LIST += \
	0644:$(LIBIPUMPI_SO):$(LIBDIR)/$(notdir $(LIBIPUMPI_SO)) \
	0644:$(LIBIPUMPI):$(LIBDIR)/$(notdir $(LIBIPUMPI)) \
	0644:$(O)/pkgconfig/libipu-mpi.pc:$(PKGCONFIGDIR)/libipu-mpi.pc \
	0644:include/ipu/mpi.h:$(INCLUDEDIR)/ipu/mpi.h \
	0755:$(IPU_RUN_MPI):$(BINDIR)/ipu-run-mpi \
	0644:packaging/man/ipu-run-mpi.1:$(MANDIR)/man1/ipu-run-mpi.1 \
	0644:packaging/man/libipu-mpi.3:$(MANDIR)/man3/libipu-mpi.3
else ifneq ($(WITH_MPI),0)
$(error WITH_MPI=$(WITH_MPI): 1 (install the MPI layer) or 0 (leave it out))
endif
# The development symlinks: NAME -> TARGET, in LIBDIR.
INSTALL_LINKS := $(foreach f,$(INSTALL_SOS),$(notdir $(f:.so.$(SO_VERSION)=.so)):$(notdir $(f)))
# Directories that belong to this stack alone: uninstall removes them
# once empty (never bin/, lib/, ... which other software shares).
INSTALL_OWN_DIRS := $(INCLUDEDIR)/ipu $(FIRMWAREDIR)/ipu $(DOCDIR) \
	$(sort $(foreach f,$(PY_FILES),$(dir $(PYTHONDIR)/$(patsubst userspace/python/%,%,$(f)))))

INSTALL_SOURCES := $(foreach e,$(INSTALL_LIST),$(word 2,$(subst :, ,$(e))))

.PHONY: install uninstall install-dkms uninstall-dkms

# Built with the variables' final values: the .pc files name the install
# directories, the unit the daemon's path.
$(O)/pkgconfig/%.pc: packaging/pkgconfig/%.pc.in FORCE_PC
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(IPU_VERSION)|g' $< >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(O)/systemd/ipu-simd.service: packaging/systemd/ipu-simd.service.in FORCE_PC
	@mkdir -p $(dir $@)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' $< >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

.PHONY: FORCE_PC
FORCE_PC:

install: $(INSTALL_SOURCES)
	@set -e; for e in $(INSTALL_LIST); do \
		mode=$${e%%:*}; rest=$${e#*:}; src=$${rest%%:*}; dst=$(DESTDIR)$${rest#*:}; \
		echo "  INSTALL $$dst"; install -D -m $$mode "$$src" "$$dst"; \
	done; \
	for l in $(INSTALL_LINKS); do \
		ln -sfn "$${l#*:}" "$(DESTDIR)$(LIBDIR)/$${l%%:*}"; \
	done

uninstall:
	@set -e; for e in $(INSTALL_LIST); do \
		rm -f "$(DESTDIR)$${e##*:}"; \
	done; \
	for l in $(INSTALL_LINKS); do \
		rm -f "$(DESTDIR)$(LIBDIR)/$${l%%:*}"; \
	done; \
	for d in $(sort $(INSTALL_OWN_DIRS)); do \
		find "$(DESTDIR)$$d" -depth -type d -empty -delete 2>/dev/null || true; \
	done

# ipu.ko's sources as DKMS wants them, in DKMSSRCDIR/ipu-VERSION: Kbuild,
# all of driver/ (whatever Kbuild lists today), include/, the build script
# that runs the compile probes (scripts/build-module), and dkms.conf.
DKMS_TREE := $(DESTDIR)$(DKMSSRCDIR)/ipu-$(IPU_VERSION)
install-dkms:
	install -d $(DKMS_TREE)/scripts
	cp -R Kbuild driver include $(DKMS_TREE)/
	rm -f $(DKMS_TREE)/driver/compat_probes.h
	install -m 0755 scripts/build-module $(DKMS_TREE)/scripts/build-module
	install -m 0755 packaging/dkms/dkms-build $(DKMS_TREE)/dkms-build
	sed -e 's|@VERSION@|$(IPU_VERSION)|g' packaging/dkms/dkms.conf.in >$(DKMS_TREE)/dkms.conf
	chmod -R u=rwX,go=rX $(DKMS_TREE)

uninstall-dkms:
	rm -rf $(DKMS_TREE)
