# ringbench: the two commands of README.md, and the steps behind them.
#   make bench   build, then run the default sweep and write its report (GPU if one is usable,
#                otherwise the CPU reference backend, said loudly)
#   make test    build, then run every CTest test (GPU tests report "skipped" without a GPU)
#   make install put the ringbench binary (built as BUILD/bench/ringbench) into PREFIX/bin
# Both first check that what they need works, and install only what does not (`make deps`,
# .ci/deps.sh; RINGBENCH_NO_INSTALL=1 to only check).
# Variables: BUILD (build directory), BENCH_ARGS (extra `ringbench run` options, e.g.
# BENCH_ARGS='--preset quick'), CMAKE_ARGS (extra configure options), JOBS, PREFIX (make install;
# default $HOME/.local, which needs no root).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
BENCH_ARGS ?=
PREFIX ?= $(HOME)/.local

# Quiet recursion: no "Entering/Leaving directory" pair around every sub-make (CMake's included).
MAKEFLAGS += --no-print-directory
# deps.sh's no-nvcc banner once per make command: the make a user typed says it (through `make deps`),
# its sub-makes (test-asan, test-tsan, test-fuzz: CPU-only builds anyway) are told not to.
ifneq ($(MAKELEVEL),0)
export RINGBENCH_NVCC_NOTE := 0
endif

# nvcc is often installed outside PATH; CMake is told where when it is in the usual place.
NVCC := $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
ifneq ($(NVCC),)
CUDA_ARG := -DCMAKE_CUDA_COMPILER=$(NVCC)
endif

.PHONY: all build bench wsl2 nightly reports format test test-asan test-tsan test-fuzz deps install clean

all: build

# Checks each need of .ci/packages by whether it works (cmake >= 3.25 from anywhere, a C11 compiler,
# an HDF5 that this project's configure finds with CMAKE_ARGS, ...), and installs only what does not:
# on Debian/Ubuntu, with apt-get as root or through `sudo -n`, its output in BUILD/deps.log. CI's own
# tools (kind ci: clang, clang-format, debootstrap, the PostgreSQL server) are left to .ci/run. A
# required need still missing stops (exit 2); where it could not install, one command installs
# everything missing ("as root:" for a user without sudo). It says loudly when there is no nvcc.
# RINGBENCH_NO_INSTALL=1 makes it check and never install.
deps:
	@mkdir -p $(BUILD) && RINGBENCH_CMAKE_ARGS="$(CMAKE_ARGS)" RINGBENCH_DEPS_LOG=$(abspath $(BUILD))/deps.log sh .ci/deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CUDA_ARG) $(CMAKE_ARGS)

# deps runs on every build, not only the first configure: a package removed since, or one added to
# the list, is caught by the next `make test`.
build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

bench: build
	$(BUILD)/bench/ringbench run --report $(BENCH_ARGS)

# The nightly job (bench/nightly/ has cron, systemd, CI and Windows examples; docs/tracking.md): the
# default preset with the smallest size's full window measured again in WINDOW_PROCS fresh processes
# (run --window-procs; about 3 s each on an H100, 0 turns it off), with the run's own progress line
# (a line every 5 s in a log), then `ringbench track` into HISTORY, which refreshes HISTORY/history.md. HISTORY empty (the default) is track's own default,
# $XDG_STATE_HOME/ringbench/history (~/.local/state/ringbench/history): outside the checkout, which
# stays clean. HISTORY may be a postgresql:// URI, a history many machines share (docs/tracking.md; the
# password in ~/.pgpass or PGPASSWORD, not in the URI): the run file then goes to STORE (a folder every
# machine sees) or, without it, to this machine's $XDG_STATE_HOME/ringbench/runs. Exit status: track's
# (0 no regression, 1 a regression, 2 a file error, a server that cannot be reached, or no tracking in
# this build), or 1 when the run itself failed a cell. The run is written under BUILD/nightly/ and
# removed once the history holds its copy; otherwise kept there, and the last lines say so and how to
# retry (a machine without SQLite measures and tracks elsewhere).
HISTORY ?=
STORE ?=
TRACK_ARGS ?=
WINDOW_PROCS ?= 24
nightly: build
	@mkdir -p $(BUILD)/nightly; \
	out=$(BUILD)/nightly/$$(hostname | tr -c 'A-Za-z0-9\n-' _)-$$(date -u +%Y%m%dT%H%M%SZ).h5; \
	$(BUILD)/bench/ringbench run --preset default --window-procs $(WINDOW_PROCS) -o "$$out" $(BENCH_ARGS); run=$$?; \
	if [ ! -f "$$out" ]; then echo "nightly: the run wrote no file (exit $$run)" >&2; exit 2; fi; \
	$(BUILD)/bench/ringbench track "$$out" $(if $(HISTORY),--history "$(HISTORY)") $(if $(STORE),--store "$(STORE)") $(TRACK_ARGS); track=$$?; \
	if [ $$track -le 1 ]; then rm -f "$$out"; else echo "nightly: track exited $$track (above: why, and for a server the command to retry); the run is kept in $$out for ringbench track FILE --history DIR|URI, here or on a machine whose ringbench has SQLite" >&2; fi; \
	if [ $$track -eq 0 ] && [ $$run -ne 0 ]; then echo "nightly: the run reported a failure (exit $$run)" >&2; exit 1; fi; \
	exit $$track

# The WSL2 half of the comparison in one command (docs/wsl2.md): what the platform allows, what each
# CUDA call costs and the pinned-memory ceiling (probe), then the default sweep into
# results/runs/<host>-wsl2-<UTC time>.h5 with its report, whose first lines repeat the per-call costs
# and the ceiling (measured again by the run, --pinned-max 8G). On WSL2 the kernel lifetime defaults
# to 1.5 s, below the Windows watchdog; the file records it.
wsl2: build
	$(BUILD)/bench/ringbench probe
	@mkdir -p results/runs
	$(BUILD)/bench/ringbench run --report --pinned-max 8G -o results/runs/$$(hostname | tr -c 'A-Za-z0-9\n-' _)-wsl2-$$(date -u +%Y%m%dT%H%M%SZ).h5 $(BENCH_ARGS)

# What is made from the committed reference run (results/reference/; its path is set once, in
# CMakeLists.txt): its report, into BUILD/reports/ (git ignores it). No GPU needed.
reports: build
	cmake --build $(BUILD) --target reports

# Applies .clang-format to every C, header and CUDA file outside build directories (the same files
# tests/format_check.sh checks without changing anything).
format:
	find . \( -name 'build*' -o -name .git \) -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) \
	  -print | xargs clang-format -i --style=file

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# CMake's install rules (bench/CMakeLists.txt): ringbench into PREFIX/bin, which must be on PATH for a
# bare `ringbench` to work; said when it is not.
install: build
	cmake --install $(BUILD) --prefix "$(PREFIX)"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; \
	  *) echo "ringbench: $(PREFIX)/bin is not on your PATH: add it (e.g. export PATH=\"$(PREFIX)/bin:\$$PATH\" in ~/.profile)";; esac

# The unit tests under the sanitizers (CPU backend; kernels are not built).
test-asan:
	$(MAKE) test BUILD=$(BUILD)-asan CMAKE_ARGS="-DRINGBENCH_SANITIZE=address -DRINGBENCH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug"

test-tsan:
	$(MAKE) test BUILD=$(BUILD)-tsan CMAKE_ARGS="-DRINGBENCH_SANITIZE=thread -DRINGBENCH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug"

# The libFuzzer targets of the file readers (tests/fuzz.cmake), in a clang build of their own under
# ASan + UBSan, each for RINGBENCH_FUZZ_SECONDS (12 s); without clang it says so and skips.
test-fuzz:
	@if command -v clang >/dev/null 2>&1; then \
	  $(MAKE) build BUILD=$(BUILD)-fuzz CMAKE_ARGS="-DCMAKE_C_COMPILER=clang -DRINGBENCH_FUZZ=ON -DRINGBENCH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug" && \
	  ctest --test-dir $(BUILD)-fuzz -L fuzz --output-on-failure -j $(JOBS); \
	else echo "test-fuzz: no clang (apt-get install clang): the fuzz targets are SKIPPED"; fi

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-fuzz
