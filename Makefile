# SPDX-License-Identifier: GPL-2.0
#
# Top-level build of the IPU driver stack.
#
#   make               build userspace (libipu, tests) and ipu.ko for the host's kernel headers
#   make unit          host unit tests (cmocka), plain, under ASan+UBSan, under valgrind and
#                      against the shared libraries; what those export (check-exports)
#   make lint          W=1, sparse and checkpatch --strict on the driver
#   make kernel-check  ipu.ko built and tested in QEMU on every kernel of the matrix
#   make kernel-soak   the UAPI fuzzer alone in QEMU, IPU_SOAK_MINUTES per kernel
#   make kernel-matrix ipu.ko built (W=1, sparse; no boot) against every other Debian kernel
#   make fuzz          libFuzzer targets (clang) over the executable reader, 30 s each
#   make python        the Python package (userspace/python/ipu: `import ipu`) and the
#                      shared libraries it binds; python-check runs its tests
#   make install       PREFIX=/usr/local DESTDIR=: libraries, headers, .pc files, tools,
#                      firmware, man pages, udev rule, modprobe.d, systemd unit;
#                      make uninstall removes exactly that (packaging/install.mk)
#   make deb           Debian packages (scripts/build-debs) into build/deb
#   make pkg-check     install/uninstall, per-target deps, the packages in a Debian 13 chroot
#   make check         all of the above; ends with one "N passed, N failed" line
#
# The kernel module itself is built by Kbuild (see Kbuild); this file only
# drives it, through scripts/build-module, so that each kernel gets its own
# copy of the tree.

BUILD ?= build
O := $(BUILD)

CC ?= gcc
SAN ?=
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# Only the public headers are on the include path. A library's internal
# headers (userspace/ipu/internal.h, backend*.h, session_internal.h,
# ir_internal.h, firmware/fw_internal.h) sit next to its sources, which
# include them as "name.h" (found in the including file's directory), so
# no other code sees them; a unit test of an internal module includes its
# header by relative path ("../../userspace/session/session_internal.h").
CPPFLAGS_ALL := -D_GNU_SOURCE -Iinclude -Iinclude/uapi $(CPPFLAGS)
CFLAGS_ALL := -std=gnu11 -O2 -g -fPIC $(WARN) $(SAN) $(CFLAGS)
LDFLAGS_ALL := $(SAN) $(LDFLAGS)

# Libraries, bottom up: libipufw (firmware: dtypes, executable format,
# executor), libipu (devices), libipuir (IR builder and compiler),
# libsession (PopXL's Session).
LIBIPUFW_SRCS := $(sort $(wildcard firmware/*.c))
LIBIPUFW_OBJS := $(LIBIPUFW_SRCS:%.c=$(O)/%.o)
LIBIPUFW := $(O)/lib/libipufw.a
LIBIPU_SRCS := $(sort $(wildcard userspace/ipu/*.c))
LIBIPU_OBJS := $(LIBIPU_SRCS:%.c=$(O)/%.o)
LIBIPU := $(O)/lib/libipu.a
LIBIPUIR_SRCS := $(sort $(wildcard userspace/ir/*.c))
LIBIPUIR_OBJS := $(LIBIPUIR_SRCS:%.c=$(O)/%.o)
LIBIPUIR := $(O)/lib/libipuir.a
LIBSESSION_SRCS := $(sort $(wildcard userspace/session/*.c))
# The trace's strings go through the tools' JSON escaper (json_str.h).
LIBSESSION_OBJS := $(LIBSESSION_SRCS:%.c=$(O)/%.o) $(O)/userspace/tools/json_str.o
LIBSESSION := $(O)/lib/libsession.a
# The device half of ipu-emu (the PCIe IPU's model, docs/hardware.md); unit
# tests drive it directly, the vfio-user transport links it into ipu-emu.
EMU_DEV_SRCS := $(sort $(wildcard firmware/emu/emu_dev*.c))
EMU_DEV_OBJS := $(EMU_DEV_SRCS:%.c=$(O)/%.o)
LIBIPUEMU := $(O)/lib/libipuemu.a
ALL_LIBS := $(LIBSESSION) $(LIBIPUIR) $(LIBIPU) $(LIBIPUEMU) $(LIBIPUFW)
SYS_LIBS := -luring -lopenblas -lz -lm -lpthread

# ipu-simd: the firmware daemon of the kernel's simulated IPUs (not part of
# libipufw: firmware/*.c is not recursive).
# firmware/devmem: what ipu-simd and ipu-emu both write into device memory
# (op profiles).
DEVMEM_OBJS := $(patsubst %.c,$(O)/%.o,$(sort $(wildcard firmware/devmem/*.c)))
SIMD_SRCS := $(sort $(wildcard firmware/simd/*.c))
SIMD_OBJS := $(SIMD_SRCS:%.c=$(O)/%.o) $(DEVMEM_OBJS)
SIMD := $(O)/firmware/ipu-simd

# The PCIe IPU's firmware image (docs/hardware.md section 8), the file the
# driver asks for with request_firmware("ipu/ipu-fw.bin"), made by ipu-mkfw.
MKFW := $(O)/firmware/ipu-mkfw
FW_IMAGE := $(O)/firmware/ipu/ipu-fw.bin
# ipu-emu (firmware/emu/): the PCIe IPU's device model served to QEMU over
# vfio-user. EMU_SRCS is the transport (vfio_user*.c, which its unit tests
# link as VFU_OBJS) and main.c; the device half is EMU_DEV_SRCS.
VFU_SRCS := $(sort $(wildcard firmware/emu/vfio_user*.c))
VFU_OBJS := $(VFU_SRCS:%.c=$(O)/%.o)
EMU_SRCS := $(VFU_SRCS) firmware/emu/main.c
EMU_OBJS := $(EMU_SRCS:%.c=$(O)/%.o)
EMU := $(O)/firmware/ipu-emu

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:%.c=$(O)/%)
BENCH_SRCS := $(sort $(wildcard tests/bench/bench_*.c))
BENCH_BINS := $(BENCH_SRCS:%.c=$(O)/%)
KTEST_SRCS := $(sort $(wildcard tests/kernel/test_*.c))
KTEST_BINS := $(KTEST_SRCS:%.c=$(O)/%)
KBENCH_SRCS := $(sort $(wildcard tests/kernel/bench_*.c))
KBENCH_BINS := $(KBENCH_SRCS:%.c=$(O)/%)
TEST_LIBS := -lcmocka $(SYS_LIBS)

.PHONY: all deps userspace module unit unit-plain unit-asan unit-valgrind \
	unit-shared shared check-exports \
	unit-tools firmware lint kernel-check kernel-bench kernel-soak kernel-matrix fuzz \
	python python-check python-demo python-bench mpi mpi-check bench-mpi check demo \
	bench bench-table demo-trace clean install-check deb pkg-check

all: userspace module

deps:
	@scripts/install-deps

# Each target installs only its own dependencies: deps-demo runs
# `scripts/install-deps demo`, and so on (`deps` is everything, for check).
DEPS_TARGETS := demo build unit python lint kernel fuzz deb pkg-check mpi
.PHONY: $(DEPS_TARGETS:%=deps-%)
# A static pattern rule: make skips implicit rules for .PHONY targets.
$(DEPS_TARGETS:%=deps-%): deps-%:
	@scripts/install-deps $*

userspace: $(ALL_LIBS) $(UNIT_BINS) $(KTEST_BINS) $(SIMD) $(EMU) $(FW_IMAGE)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(LIBIPUFW): $(LIBIPUFW_OBJS)
$(LIBIPU): $(LIBIPU_OBJS)
$(LIBIPUIR): $(LIBIPUIR_OBJS)
$(LIBSESSION): $(LIBSESSION_OBJS)
$(LIBIPUEMU): $(EMU_DEV_OBJS) $(DEVMEM_OBJS)
$(ALL_LIBS):
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(MKFW): $(O)/firmware/mkfw/ipu-mkfw.o
	$(CC) $^ -o $@ $(LDFLAGS_ALL) -lz

$(FW_IMAGE): $(MKFW)
	@mkdir -p $(dir $@)
	$(MKFW) -o $@

firmware: $(FW_IMAGE)

$(EMU): $(EMU_OBJS) $(LIBIPUEMU) $(LIBIPUFW)
	$(CC) $(EMU_OBJS) -o $@ $(LIBIPUEMU) $(LIBIPUFW) $(LDFLAGS_ALL) $(SYS_LIBS)

$(SIMD): $(SIMD_OBJS) $(LIBIPUFW)
	$(CC) $(SIMD_OBJS) -o $@ $(LIBIPUFW) $(LDFLAGS_ALL) $(filter-out -luring,$(SYS_LIBS))

$(O)/tests/%: tests/%.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -MMD -MP $< $(filter %.o,$^) -o $@ $(ALL_LIBS) $(LDFLAGS_ALL) $(TEST_LIBS)

# Examples (userspace/examples) and tools (userspace/tools), built into
# $(O)/examples and $(O)/tools. A test of their code names the objects it
# needs as prerequisites; the rule above links every .o prerequisite.
MLP_OBJS := $(addprefix $(O)/userspace/examples/,mlp_model.o mlp_data.o mlp_session.o)
NPY_OBJS := $(O)/userspace/tools/npy.o
# The tools' JSON string escaper (ipu-info, ipu-bringup, ipu-trace).
JSON_STR_OBJS := $(O)/userspace/tools/json_str.o
# ipu-info (userspace/tools/ipu-info.c and info_*.c) links libpci (pciutils;
# Debian ships it shared only).
INFO_OBJS := $(patsubst %.c,$(O)/%.o,$(sort $(wildcard userspace/tools/info_*.c)))
PCI_LIBS := $(shell pkg-config --libs libpci 2>/dev/null || echo -lpci)
# ipu-bringup (ipu-bringup.c, bringup_*.c) builds on ipu-info's gathering.
BRINGUP_OBJS := $(patsubst %.c,$(O)/%.o,$(sort $(wildcard userspace/tools/bringup_*.c)))
# ipu-trace (ipu-trace.c, trace_*.c) reads traces with json-c.
TRACE_OBJS := $(patsubst %.c,$(O)/%.o,$(sort $(wildcard userspace/tools/trace_*.c)))
JSONC_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null || echo -I/usr/include/json-c)
JSONC_LIBS := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
APP_BINS := $(O)/examples/mlp_train $(O)/examples/make_example_exe $(O)/tools/ipu-run \
	$(O)/tools/ipu-info $(O)/tools/ipu-bringup $(O)/tools/ipu-trace

userspace: $(APP_BINS)

$(O)/examples/mlp_train: $(O)/userspace/examples/mlp_train.o $(MLP_OBJS)
$(O)/examples/make_example_exe: $(O)/userspace/examples/make_example_exe.o $(NPY_OBJS)
$(O)/tools/ipu-run: $(O)/userspace/tools/ipu-run.o $(O)/userspace/tools/ipu-run-instances.o \
		$(O)/userspace/tools/ipu-run-signals.o $(NPY_OBJS)
$(O)/tools/ipu-info: $(O)/userspace/tools/ipu-info.o $(INFO_OBJS) $(JSON_STR_OBJS)
$(O)/tools/ipu-info: APP_LIBS := $(PCI_LIBS)
$(O)/tools/ipu-bringup: $(O)/userspace/tools/ipu-bringup.o $(BRINGUP_OBJS) $(INFO_OBJS) \
		$(JSON_STR_OBJS)
$(O)/tools/ipu-bringup: APP_LIBS := $(PCI_LIBS)
$(O)/tools/ipu-trace: $(O)/userspace/tools/ipu-trace.o $(TRACE_OBJS) $(JSON_STR_OBJS)
$(O)/tools/ipu-trace: APP_LIBS := $(JSONC_LIBS)
$(TRACE_OBJS): CPPFLAGS_ALL += $(JSONC_CFLAGS)
$(APP_BINS): $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(filter %.o,$^) -o $@ $(ALL_LIBS) $(LDFLAGS_ALL) $(APP_LIBS) $(SYS_LIBS)

$(O)/tests/unit/test_demo_mlp: $(MLP_OBJS)
# ipu-simd's end of a split program's gather against libsession's.
$(O)/tests/unit/test_fw_gather: $(O)/firmware/simd/instances.o
$(O)/tests/unit/test_npy: $(NPY_OBJS)
# libipufw's allocations fail where the test says (__wrap_malloc()).
$(O)/tests/unit/test_fw_lockstep: TEST_LIBS += -Wl,--wrap=malloc
# The timeline's late reaper (__wrap_ipu_queue_reap()), on the model, the
# simulated IPUs and the PCI ones.
$(O)/tests/unit/test_session_trace: TEST_LIBS += -Wl,--wrap=ipu_queue_reap
$(O)/tests/kernel/%session_hw_trace: TEST_LIBS += -Wl,--wrap=ipu_queue_reap
# ipu-info's gathering and printing, over fake sysfs trees.
$(O)/tests/unit/test_ipu_info: $(INFO_OBJS) $(JSON_STR_OBJS)
$(O)/tests/unit/test_json_str: $(JSON_STR_OBJS)
# trace_kparse's pairing (its key comparisons), on generated lines.
$(O)/tests/unit/test_trace_kparse: $(O)/userspace/tools/trace_kparse.o $(JSON_STR_OBJS)
$(O)/tests/unit/test_ipu_info: TEST_LIBS += $(PCI_LIBS)
# ipu-bringup's link arithmetic (its DMA thresholds).
$(O)/tests/unit/test_bringup_link: $(O)/userspace/tools/bringup_link.o
# The vfio-user transport's tests link its objects (the table and the
# JSON reader's tests only theirs: the rest calls into a device).
VFU_TESTS := test_vfio_user test_vfio_user_malformed test_vfio_user_emu \
	test_vfio_user_lifecycle test_vfio_user_dmamsg test_vfio_user_dmamsg_emu \
	test_vfio_user_queue test_ipu_emu \
	$(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_emu_attack*.c))
$(VFU_TESTS:%=$(O)/tests/unit/%): $(VFU_OBJS)
# test_ipu_emu runs the program.
$(O)/tests/unit/test_ipu_emu: | $(EMU)
$(O)/tests/unit/test_vfio_user_dma: $(O)/firmware/emu/vfio_user_dma.o
$(O)/tests/unit/test_vfio_user_caps: $(O)/firmware/emu/vfio_user_caps.o

-include $(MLP_OBJS:.o=.d) $(NPY_OBJS:.o=.d) $(JSON_STR_OBJS:.o=.d) $(INFO_OBJS:.o=.d) $(TRACE_OBJS:.o=.d) $(BRINGUP_OBJS:.o=.d) $(patsubst $(O)/%,$(O)/userspace/%.d,$(APP_BINS))

# Shared libraries, from the same (-fPIC) objects: sonames lib*.so.1, and
# only what the public headers declare exported (each library's version
# script, *.map; scripts/check-exports verifies the result). Each links
# the libraries it calls, and -z defs makes a missing one a link error.
SO_VERSION := 1
LIBIPUFW_SO := $(O)/lib/libipufw.so.$(SO_VERSION)
LIBIPU_SO := $(O)/lib/libipu.so.$(SO_VERSION)
LIBIPUIR_SO := $(O)/lib/libipuir.so.$(SO_VERSION)
LIBSESSION_SO := $(O)/lib/libsession.so.$(SO_VERSION)
ALL_SOS := $(LIBSESSION_SO) $(LIBIPUIR_SO) $(LIBIPU_SO) $(LIBIPUFW_SO)

$(LIBIPUFW_SO): $(LIBIPUFW_OBJS) firmware/libipufw.map
$(LIBIPUFW_SO): SO_LIBS := -lopenblas -lz -lm -lpthread
$(LIBIPU_SO): $(LIBIPU_OBJS) userspace/ipu/libipu.map $(LIBIPUFW_SO)
$(LIBIPU_SO): SO_LIBS := -luring -lpthread
$(LIBIPUIR_SO): $(LIBIPUIR_OBJS) userspace/ir/libipuir.map $(LIBIPUFW_SO)
$(LIBIPUIR_SO): SO_LIBS := -lm
$(LIBSESSION_SO): $(LIBSESSION_OBJS) userspace/session/libsession.map \
	$(LIBIPUIR_SO) $(LIBIPU_SO) $(LIBIPUFW_SO)
$(LIBSESSION_SO): SO_LIBS := -lm -lpthread
$(ALL_SOS):
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(notdir $@) -Wl,-z,defs \
		-Wl,--version-script=$(filter %.map,$^) $(filter %.o,$^) \
		$(filter %.so.$(SO_VERSION),$^) -o $@ $(LDFLAGS_ALL) $(SO_LIBS)
	ln -sf $(notdir $@) $(@:.so.$(SO_VERSION)=.so)

shared: $(ALL_SOS)

# Every exported symbol of the shared libraries is declared by a public
# header (or is a "__" test hook of the library's map); counts go to
# $(O)/results/check-exports.
check-exports: $(ALL_SOS)
	BUILD=$(BUILD) scripts/check-exports $(ALL_SOS)

# The unit tests again, linked against the shared libraries instead of the
# archives: they must need nothing the maps keep local (test hooks aside,
# include/ipu/testing.h). Those that call what a map keeps local run
# against the archives only: the unit tests of libipu's front end, which
# drive it through a scripted backend (fake_backend.h: the internal
# backend registry and ipu_device_list_add), and ipu-info's, whose tools
# link libipu's archive for its attribute readers (userspace/ipu/attr.h),
# and libsession's timeline's, whose cap test lowers the cap through
# ipu_sess_trace_set_max() (session_internal.h), and libipufw's lockstep
# failures', which wrap the archive's malloc (-Wl,--wrap reaches no .so).
# ipu-emu's tests (device and transport) test no shared library.
UNIT_INTERNAL := test_args test_bo test_device test_error test_queue_reap \
	test_queue_backends test_xfer test_ipu_info test_session_trace \
	$(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_emu_dev*.c)) \
	$(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_vfio_user*.c)) \
	$(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_emu_attack*.c)) \
	test_ipu_emu test_fw_gather test_gather_requests test_fw_lockstep
UNIT_SHARED_SRCS := $(filter-out $(UNIT_INTERNAL:%=tests/unit/%.c),$(UNIT_SRCS))
UNIT_SHARED_BINS := $(UNIT_SHARED_SRCS:%.c=$(O)/shared/%)
SHARED_LINK := -L$(O)/lib -Wl,--disable-new-dtags,-rpath,$(abspath $(O)/lib) -lsession -lipuir -lipu -lipufw

# DT_RPATH (not RUNPATH): it also finds the libraries the libraries need.
$(O)/shared/tests/%: tests/%.c $(ALL_SOS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -MMD -MP $< $(filter %.o,$^) -o $@ $(SHARED_LINK) $(LDFLAGS_ALL) $(TEST_LIBS)

$(O)/shared/tests/unit/test_demo_mlp: $(MLP_OBJS)
$(O)/shared/tests/unit/test_npy: $(NPY_OBJS)
$(O)/shared/tests/unit/test_bringup_link: $(O)/userspace/tools/bringup_link.o
$(O)/shared/tests/unit/test_json_str: $(JSON_STR_OBJS)
$(O)/shared/tests/unit/test_trace_kparse: $(O)/userspace/tools/trace_kparse.o $(JSON_STR_OBJS)

unit-shared: $(UNIT_SHARED_BINS)
	BUILD=$(BUILD) scripts/run-tests unit-shared $(UNIT_SHARED_BINS)

-include $(UNIT_SHARED_BINS:=.d)

# ipu.ko is built again only when what it is built from changed (a plain
# `make` on an unchanged tree builds nothing): the files build-module
# copies (Kbuild, driver/, include/), build-module itself, and the kernel
# headers it picks for "host" ($(O)/kmod/host.kdir, rewritten only when
# they are others: new headers installed).
MODULE_SRCS := Kbuild scripts/build-module $(shell find driver include -type f ! -name '*.o' ! -name '.*' 2>/dev/null)
module: $(O)/kmod/host/ipu.ko

$(O)/kmod/host.kdir: FORCE | deps-build
	@mkdir -p $(dir $@)
	@k="$$(scripts/build-module --print-kdir host)" && \
	{ [ "$$(cat $@ 2>/dev/null)" = "$$k" ] || echo "$$k" >$@; }

$(O)/kmod/host/ipu.ko: $(MODULE_SRCS) $(O)/kmod/host.kdir | deps-build
	scripts/build-module host $(O)/kmod/host

.PHONY: FORCE
FORCE:

# Unit tests: the same sources three ways. Each run writes its counts to
# $(O)/results/ so that `make check` can print one total.
unit: deps-unit
	$(MAKE) unit-plain unit-asan unit-valgrind unit-tools unit-shared check-exports

# BUILD=$(BUILD): the scripts read the build directory from the environment,
# and a BUILD given on make's command line is not exported to recipes.
unit-plain: userspace
	BUILD=$(BUILD) scripts/run-tests unit $(UNIT_BINS)

ASAN_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
VALGRIND_RUN := valgrind -q --error-exitcode=99 --leak-check=full \
	--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect

unit-asan:
	$(MAKE) BUILD=$(BUILD)/asan SAN="$(ASAN_SAN)" userspace
	BUILD=$(BUILD) ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		scripts/run-tests unit-asan $(UNIT_SRCS:%.c=$(BUILD)/asan/%)

unit-valgrind: userspace
	BUILD=$(BUILD) scripts/run-tests --valgrind unit-valgrind $(UNIT_BINS)

# ipu-run end to end (tests/tools/test_ipu_run.sh: NumPy writes the inputs
# and checks the outputs; tests/tools/test_ipu_run_signals.sh: Ctrl-C), ipu-info (tests/tools/test_ipu_info.sh: fake
# trees, its JSON parsed by Python) and ipu-bringup
# (tests/tools/test_ipu_bringup.sh: the model, its faults), ipu-trace and
# ipu-run --trace (tests/tools/test_ipu_trace.sh), ipu-trace record against a
# fake tracefs (tests/tools/test_ipu_trace_record.sh, also under valgrind: it
# parses the kernel's text), each plainly and built
# with ASan+UBSan; ipu-run, the reader of untrusted files, also under
# valgrind (uninitialised reads, which ASan does not see; the libraries
# the other tools call run under valgrind in unit-valgrind, and these
# three passes cost 3 minutes), and the rig's hot-plug relay against a fake QEMU
# monitor (tests/tools/test_hotplug_relay.py, pytest), and the README's C and
# Python examples (tests/tools/test_readme.sh), and scripts/bench-table on
# made-up logs (tests/tools/test_bench_table.sh); each run writes
# $(O)/results/unit-tools*. All run even when one fails.
unit-tools: userspace $(ALL_SOS)
	$(MAKE) BUILD=$(BUILD)/asan SAN="$(ASAN_SAN)" $(BUILD)/asan/tools/ipu-run \
		$(BUILD)/asan/examples/make_example_exe $(BUILD)/asan/tools/ipu-info \
		$(BUILD)/asan/tools/ipu-bringup $(BUILD)/asan/tools/ipu-trace
	@st=0; \
	BUILD=$(BUILD) tests/tools/test_ipu_run.sh unit-tools $(BUILD) || st=1; \
	BUILD=$(BUILD) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/tools/test_ipu_run.sh unit-tools-asan $(BUILD)/asan || st=1; \
	BUILD=$(BUILD) IPU_RUN_WRAPPER="$(VALGRIND_RUN)" \
		tests/tools/test_ipu_run.sh unit-tools-valgrind $(BUILD) || st=1; \
	BUILD=$(BUILD) tests/tools/test_ipu_run_signals.sh unit-tools-signals $(BUILD) || st=1; \
	BUILD=$(BUILD) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/tools/test_ipu_run_signals.sh unit-tools-signals-asan $(BUILD)/asan || st=1; \
	BUILD=$(BUILD) tests/tools/test_ipu_info.sh unit-tools-info $(BUILD) || st=1; \
	BUILD=$(BUILD) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/tools/test_ipu_info.sh unit-tools-info-asan $(BUILD)/asan || st=1; \
	BUILD=$(BUILD) tests/tools/test_ipu_bringup.sh unit-tools-bringup $(BUILD) || st=1; \
	BUILD=$(BUILD) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/tools/test_ipu_bringup.sh unit-tools-bringup-asan $(BUILD)/asan || st=1; \
	BUILD=$(BUILD) tests/tools/test_ipu_trace.sh unit-tools-trace $(BUILD) || st=1; \
	BUILD=$(BUILD) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/tools/test_ipu_trace.sh unit-tools-trace-asan $(BUILD)/asan || st=1; \
	BUILD=$(BUILD) tests/tools/test_ipu_trace_record.sh unit-tools-trace-record $(BUILD) || st=1; \
	BUILD=$(BUILD) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/tools/test_ipu_trace_record.sh unit-tools-trace-record-asan $(BUILD)/asan || st=1; \
	BUILD=$(BUILD) IPU_RUN_WRAPPER="$(VALGRIND_RUN)" \
		tests/tools/test_ipu_trace_record.sh unit-tools-trace-record-valgrind $(BUILD) || st=1; \
	BUILD=$(BUILD) PYTHON=$(PYTHON) scripts/run-pytest unit-tools-relay \
		tests/tools/test_hotplug_relay.py || st=1; \
	BUILD=$(BUILD) tests/tools/test_readme.sh unit-tools-readme $(BUILD) || st=1; \
	BUILD=$(BUILD) tests/tools/test_bench_table.sh unit-tools-bench-table || st=1; \
	exit $$st

# Both run even when the first fails; either failing fails lint.
lint: deps-lint
	@st=0; BUILD=$(BUILD) scripts/lint-driver || st=1; \
	BUILD=$(BUILD) scripts/lint-packaging || st=1; exit $$st

kernel-check: deps-kernel userspace
	scripts/kernel-check $(O)

# Build-only checks against every kernel header package Debian's archive
# offers (install-deps --matrix fetches them into chroots of $IPU_CACHE):
# one "kernel-matrix: <release>: ok|FAIL" line each. Not part of `make
# check` (a dozen minutes, and new uploads must not break CI); run it
# before a change to driver/compat.h or driver/conftest/ lands.
kernel-matrix: deps
	scripts/install-deps --matrix
	scripts/kernel-matrix $(O)

# The guest benchmarks (tests/kernel/bench_*.c) alone, on every kernel of
# the matrix: transfers through io_uring, the ioctl and memcpy, system
# calls per run. Not part of `make check`: TCG makes them slow.
# Its output is kept in $(KBENCH_LOG), and the guest's rows of issue 29's
# table are printed from it (scripts/bench-table; `make bench-table
# BENCH_LOG=$(KBENCH_LOG)` prints them again).
kernel-bench: deps-kernel userspace $(KBENCH_BINS)
	@mkdir -p $(dir $(KBENCH_LOG))
	{ IPU_KBENCH=1 IPU_KLANES=1 IPU_KTEST=none scripts/kernel-check $(O); echo $$? > $(KBENCH_LOG).rc; } | tee $(KBENCH_LOG)
	@$(PYTHON) scripts/bench-table $(KBENCH_LOG) || true
	@rc=$$(cat $(KBENCH_LOG).rc); rm -f $(KBENCH_LOG).rc; exit $$rc

# The UAPI fuzzer (tests/kernel/test_fuzz) alone, IPU_SOAK_MINUTES (default
# 10) per kernel of the matrix, one guest at a time on /tmp/ipu-qemu.lock;
# prints its seeds and ops/s. Not part of `make check`: it runs for minutes.
kernel-soak: deps-kernel userspace
	scripts/kernel-soak $(O)

# libFuzzer targets (tests/fuzz/fuzz_*.c, clang), each run for a bounded
# time (IPU_FUZZ_SECONDS, default 30); the counts go to $(O)/results/fuzz.
fuzz: deps-fuzz
	BUILD=$(BUILD) scripts/fuzz

# Every phase runs even when an earlier one failed (a loop, and -k inside
# each). A phase that fails without a failure in $(O)/results (a build error
# before any test could report) is recorded as one failure of its own, so
# the total never hides it. The whole output is kept in $(O)/check.log, from
# which summarize repeats the lines naming failed tests just above its total
# (a CI page may keep only the tail). Each phase's time is logged ("check:
# make PHASE took N s"), to see where CI's time goes. The last line is
# summarize's "N passed, N failed".
CHECK_PHASES := unit python-check mpi-check pkg-check lint kernel-check fuzz
FAILED_SO_FAR = cat $(O)/results/* 2>/dev/null | awk '{ f += $$2 } END { print f + 0 }'

check: deps
	@rm -rf $(O)/results && mkdir -p $(O)/results
	@status=0; : >$(O)/check.log; \
	for phase in $(CHECK_PHASES); do \
		before=$$($(FAILED_SO_FAR)); t0=$$(date +%s); \
		{ $(MAKE) -k --no-print-directory $$phase; echo $$? >$(O)/check.rc; } 2>&1 | \
			tee -a $(O)/check.log; \
		echo "check: make $$phase took $$(($$(date +%s) - t0)) s" | tee -a $(O)/check.log; \
		if [ "$$(cat $(O)/check.rc)" != 0 ]; then \
			status=1; \
			if [ "$$($(FAILED_SO_FAR))" -le "$$before" ]; then \
				echo "check: 'make $$phase' failed before its tests reported" | \
					tee -a $(O)/check.log; \
				echo "0 1 0" >$(O)/results/make-$$phase; \
			fi; \
		fi; \
	done; \
	scripts/summarize $(O)/results $(O)/check.log || status=1; \
	exit $$status

# The Python package (userspace/python/ipu, `import ipu`): ctypes over the shared
# libraries, so building it is building them; the import checks that the
# interpreter has NumPy and finds the libraries. PYTHON is Debian's
# interpreter (python3-numpy, python3-pytest): the python3 first on PATH
# may be another one without them.
PYTHON ?= /usr/bin/python3
PY_ENV := IPU_LIB_DIR=$(abspath $(O)/lib) PYTHONPATH=$(abspath userspace/python)

python: deps-python $(ALL_SOS)
	$(PY_ENV) $(PYTHON) -c 'import ipu, numpy; print("ipu: importable with NumPy", numpy.__version__, "from", ipu.__file__)'

# Its tests (userspace/python/tests, pytest, on the model); counts go to
# $(O)/results/python-check. The C demo is there to compare the Python
# demo's weights with.
python-check: python $(O)/examples/mlp_train $(O)/tools/ipu-run
	BUILD=$(BUILD) PYTHON=$(PYTHON) PYTHONPATH=$(abspath userspace/python) \
		IPU_MLP_TRAIN=$(abspath $(O)/examples/mlp_train) \
		IPU_RUN=$(abspath $(O)/tools/ipu-run) \
		scripts/run-pytest python-check userspace/python/tests

# The MLP demo in Python (userspace/python/examples/mlp_train.py): the C demo's
# weights for the same seed; DEMO_ARGS as for `make demo`.
python-demo: python
	$(PY_ENV) $(PYTHON) userspace/python/examples/mlp_train.py $(DEMO_ARGS)

# What the binding adds (tests/bench/bench_python.py): run() from Python
# against bench_session's run from C, 64 MiB streams against np.copyto.
python-bench: python $(O)/tests/bench/bench_session
	$(PY_ENV) $(PYTHON) tests/bench/bench_python.py $(O)

# Benchmarks (tests/bench): built like the tests, run one after the other;
# each prints "bench <name> <value> <unit>" lines, all kept in $(BENCH_LOG).
# Then scripts/bench-table prints issue 29's table from that log: each
# figure against its floor measured in the same run, and its goal.
# BENCH_QUIET=1 shows only the table; `make bench-table` prints it again
# from the log (BENCH_LOG=FILE: any saved output, a kernel-bench's too).
# Timing is never asserted.
BENCH_LOG ?= $(O)/bench/bench.log
KBENCH_LOG ?= $(O)/bench/kernel-bench.log
BENCH_OUT := $(if $(filter 1,$(BENCH_QUIET)),>/dev/null)
# $(call bench_step,LABEL,COMMAND): COMMAND's output, stderr too, appended
# to $(BENCH_LOG) and shown unless BENCH_QUIET=1 (its LABEL always is); a
# failure ends the bench.
bench_step = echo "== $(1)" | tee -a $(BENCH_LOG); \
	{ $(2) 2>&1; echo $$? > $(BENCH_LOG).rc; } | tee -a $(BENCH_LOG) $(BENCH_OUT); \
	[ "$$(cat $(BENCH_LOG).rc)" = 0 ] || \
		{ echo "bench: $(1) failed (see $(BENCH_LOG))" >&2; exit 1; }

bench: deps-unit
	@$(MAKE) -s --no-print-directory $(BENCH_BINS)
	@mkdir -p $(dir $(BENCH_LOG)) && : > $(BENCH_LOG)
	@for b in $(BENCH_BINS); do $(call bench_step,$$b,$$b); done
	@$(call bench_step,tests/bench/bench_python.py,$(MAKE) -s --no-print-directory python-bench)
	@$(call bench_step,tests/bench/mpi_bench_allreduce.c (mpirun -np 2 and 4),$(MAKE) -s --no-print-directory bench-mpi)
	@rm -f $(BENCH_LOG).rc
	@echo "== the table ($(BENCH_LOG); again: make bench-table)"
	@$(PYTHON) scripts/bench-table $(BENCH_LOG)

bench-table:
	@$(PYTHON) scripts/bench-table $(BENCH_LOG)

# Instances over Open MPI (docs/instances.md): libipu-mpi (userspace/mpi)
# is the only code that links MPI, built only by these targets, so the rest
# of the stack needs no MPI. mpi-check runs tests/mpi/test_mpi.sh
# (mpirun -np 1, 2, 4 on loopback); counts go to $(O)/results/mpi-check.
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS := $(shell pkg-config --libs ompi-c 2>/dev/null || echo -lmpi)
LIBIPUMPI := $(O)/lib/libipu-mpi.a
MPI_TEST_BINS := $(O)/tests/mpi/mpi_allreduce $(O)/tests/mpi/mlp_train
# ipu-run as an instance (userspace/tools/ipu-run-instances.h): what
# `mpirun ipu-run` becomes and `ipu-run --instances N` runs.
IPU_RUN_MPI := $(O)/tools/ipu-run-mpi
MPI_BENCH := $(O)/tests/bench/mpi_bench_allreduce

$(O)/userspace/mpi/%.o: userspace/mpi/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(MPI_CFLAGS) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(LIBIPUMPI): $(patsubst %.c,$(O)/%.o,$(sort $(wildcard userspace/mpi/*.c)))
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(O)/tests/mpi/%: tests/mpi/%.c $(LIBIPUMPI) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(MPI_CFLAGS) $(CFLAGS_ALL) -MMD -MP $< -o $@ \
		$(LIBIPUMPI) $(ALL_LIBS) $(LDFLAGS_ALL) $(MPI_LIBS) $(SYS_LIBS)

# The demo's trainer as an instance: its own main renamed, called by
# tests/mpi/mpi_main.c (which declares it, hence no prototype warning).
$(O)/tests/mpi/mlp_train_instance.o: userspace/examples/mlp_train.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -Dmain=instance_main -Wno-missing-prototypes -MMD -MP -c $< -o $@

$(O)/tests/mpi/mlp_train: tests/mpi/mpi_main.c $(O)/tests/mpi/mlp_train_instance.o $(MLP_OBJS) \
		$(LIBIPUMPI) $(ALL_LIBS)
	$(CC) $(CPPFLAGS_ALL) $(MPI_CFLAGS) $(CFLAGS_ALL) -MMD -MP $< -o $@ \
		$(filter %.o,$^) $(LIBIPUMPI) $(ALL_LIBS) $(LDFLAGS_ALL) $(MPI_LIBS) $(SYS_LIBS)

# The shared build, over libipu.so (one process-wide instances state with
# the libraries the Python package loads): ipu.instances loads it.
LIBIPUMPI_SO := $(O)/lib/libipu-mpi.so.$(SO_VERSION)
$(LIBIPUMPI_SO): $(patsubst %.c,$(O)/%.o,$(sort $(wildcard userspace/mpi/*.c))) \
		userspace/mpi/libipu-mpi.map $(LIBIPU_SO)
	$(CC) -shared -Wl,-soname,$(notdir $@) -Wl,-z,defs \
		-Wl,--version-script=$(filter %.map,$^) $(filter %.o,$^) \
		$(filter %.so.$(SO_VERSION),$^) -o $@ $(LDFLAGS_ALL) $(MPI_LIBS)
	ln -sf $(notdir $@) $(@:.so.$(SO_VERSION)=.so)

$(O)/userspace/tools/ipu-run-instances-mpi.o: userspace/tools/ipu-run-instances.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(MPI_CFLAGS) $(CFLAGS_ALL) -DIPU_RUN_MPI -MMD -MP -c $< -o $@

$(IPU_RUN_MPI): $(O)/userspace/tools/ipu-run.o $(O)/userspace/tools/ipu-run-instances-mpi.o \
		$(O)/userspace/tools/ipu-run-signals.o $(NPY_OBJS) $(LIBIPUMPI) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(filter %.o,$^) -o $@ $(LIBIPUMPI) $(ALL_LIBS) $(LDFLAGS_ALL) $(MPI_LIBS) $(SYS_LIBS)

$(O)/tests/bench/mpi_%: tests/bench/mpi_%.c $(LIBIPUMPI) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(MPI_CFLAGS) $(CFLAGS_ALL) -MMD -MP $< -o $@ \
		$(LIBIPUMPI) $(ALL_LIBS) $(LDFLAGS_ALL) $(MPI_LIBS) $(SYS_LIBS)

mpi: deps-mpi $(MPI_TEST_BINS) $(IPU_RUN_MPI) $(O)/tools/ipu-run $(O)/examples/mlp_train \
	$(O)/examples/make_example_exe $(LIBIPUMPI_SO) $(ALL_SOS)

mpi-check: mpi
	BUILD=$(BUILD) PYTHON=$(PYTHON) PYTHONPATH=$(abspath userspace/python) \
		tests/mpi/test_mpi.sh mpi-check $(O)

# The all-reduce across 2 and 4 instances against a bare MPI_Allreduce
# (tests/bench/mpi_bench_allreduce.c); part of make bench.
bench-mpi: deps-mpi $(MPI_BENCH)
	@for n in 2 4; do \
		mpirun --allow-run-as-root --oversubscribe --mca btl self,vader,tcp \
			--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo \
			-np $$n $(MPI_BENCH) || exit 1; \
	done

-include $(MPI_TEST_BINS:=.d) $(MPI_BENCH).d $(O)/tests/mpi/mlp_train_instance.d \
	$(O)/userspace/tools/ipu-run-instances-mpi.d

# The main job: train the example MLP (userspace/examples/mlp_train.c) on
# the default device, the model when there is no IPU. DEMO_ARGS passes
# options: make demo DEMO_ARGS="--epochs 50 --seed 7".
demo: deps-demo
	@$(MAKE) -s --no-print-directory $(O)/examples/mlp_train
	$(O)/examples/mlp_train $(DEMO_ARGS)

# The picture of the demo's timeline in the README and docs/trace.md: one
# epoch on two replicas, traced (IPU_TRACE: the runs, their transfers and
# launches, the ops inside each launch), drawn by ipu-trace into
# docs/trace-demo.svg; also $(O)/demo-trace/trace-demo.png where
# rsvg-convert is installed (never needed). The trace file's name is the
# picture's title, so it is named after the command.
TRACE_DEMO := mlp_train --epochs 1 --replicas 2
demo-trace: deps-unit
	@$(MAKE) -s --no-print-directory $(O)/examples/mlp_train $(O)/tools/ipu-trace
	@rm -rf $(O)/demo-trace && mkdir -p $(O)/demo-trace
	cd $(O)/demo-trace && IPU_TRACE='$(TRACE_DEMO)' \
		$(abspath $(O))/examples/$(TRACE_DEMO) >/dev/null
	cd $(O)/demo-trace && $(abspath $(O))/tools/ipu-trace svg '$(TRACE_DEMO)' \
		-o $(abspath docs/trace-demo.svg)
	@if command -v rsvg-convert >/dev/null; then \
		cd $(O)/demo-trace && $(abspath $(O))/tools/ipu-trace svg \
			'$(TRACE_DEMO)' -o trace-demo.png && \
		echo "demo-trace: also $(O)/demo-trace/trace-demo.png"; \
	fi

clean:
	rm -rf $(BUILD)

# make install / uninstall / install-dkms (packaging/install.mk), and the
# Debian packages built from that install (make deb; pkg-check proves them
# in a fresh Debian 13 chroot).
include packaging/install.mk

# make install into a staging tree and make uninstall from it, checked
# file by file (tests/pkg/test_install.sh); results in $(O)/results/pkg-install.
install-check: $(INSTALL_SOURCES)
	tests/pkg/test_install.sh pkg-install $(BUILD)

# The Debian packages (scripts/build-debs: dpkg-deb over a make install
# PREFIX=/usr, built with dpkg-buildflags' hardening in $(O)/deb-build),
# into $(O)/deb.
deb: deps-deb
	scripts/build-debs $(BUILD)

# The packaging proven (a phase of make check): make install/uninstall,
# each target's dependencies, make check's summary (test_summarize.sh), the
# packages' hardening (test_hardening.sh:
# readelf over every ELF file they ship), and the packages in a throwaway
# Debian 13 chroot (tests/pkg/test_debs.sh: lintian, DKMS, pkg-config, the
# tools, the MPI layer under mpirun with a split program written by
# make_example_exe, man, a guest booted from the installed system, purge), then in a
# Debian 12 one (the same but lintian and the boot). Results in $(O)/results/pkg-*. All run even when one fails.
pkg-check: deps-pkg-check
	@st=0; $(MAKE) --no-print-directory install-check || st=1; \
	$(MAKE) -s --no-print-directory $(O)/examples/make_example_exe || st=1; \
	tests/pkg/test_deps.sh pkg-deps $(BUILD) || st=1; \
	tests/pkg/test_make_noop.sh pkg-make-noop $(BUILD) || st=1; \
	tests/pkg/test_summarize.sh pkg-summarize $(BUILD) || st=1; \
	if $(MAKE) --no-print-directory deb >/dev/null; then \
		tests/pkg/test_hardening.sh pkg-hardening $(BUILD) >$(O)/deb/hardening.log || \
			{ grep FAILED $(O)/deb/hardening.log; st=1; }; \
		tail -n 1 $(O)/deb/hardening.log; \
		tests/pkg/test_debs.sh pkg-debs $(BUILD) || st=1; \
		tests/pkg/test_debs.sh pkg-debs-bookworm $(BUILD) bookworm || st=1; \
	else st=1; fi; \
	exit $$st

-include $(EMU_OBJS:.o=.d) $(SIMD_OBJS:.o=.d) $(EMU_DEV_OBJS:.o=.d) $(O)/firmware/mkfw/ipu-mkfw.d $(LIBIPUFW_OBJS:.o=.d) $(LIBIPU_OBJS:.o=.d) $(LIBIPUIR_OBJS:.o=.d) $(LIBSESSION_OBJS:.o=.d) $(UNIT_BINS:=.d) $(BENCH_BINS:=.d) $(KTEST_BINS:=.d) $(KBENCH_BINS:=.d)
