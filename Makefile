# The two commands (README): `make run` installs what is missing, builds and runs the default
# experiment; `make test` does the same and runs every test. Everything else is CMake underneath.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?=
FUZZ_SECONDS ?= 30
ifdef CI
CMAKE_FLAGS += -DCLEAVE_WERROR=ON
endif

.PHONY: all deps test-deps build run test test-long-path install bench papers sanitize fuzz clean

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/cleave run experiments/default.lua

test: test-deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# `make test` from a clone of this checkout's HEAD at a path longer than 120 characters: Lua cuts
# file names in its messages at 60, and users keep checkouts deep (CI runs this once).
LONG_PATH_ROOT ?= $(or $(TMPDIR),/tmp)/cleave-long-path
LONG_PATH_DIR = $(LONG_PATH_ROOT)/a_checkout_deep_in_folders/with_long_names_like_users_have/projects/fracture_simulation_2026/checkouts/cleave
test-long-path:
	@test $$(printf %s '$(LONG_PATH_DIR)' | wc -c) -gt 120 || { echo "$(LONG_PATH_DIR) is not longer than 120 characters" >&2; exit 1; }
	rm -rf '$(LONG_PATH_ROOT)'
	git clone --quiet --no-checkout . '$(LONG_PATH_DIR)'
	git -C '$(LONG_PATH_DIR)' checkout --quiet --detach $$(git rev-parse HEAD)
	$(MAKE) -C '$(LONG_PATH_DIR)' test
	rm -rf '$(LONG_PATH_ROOT)'

install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

bench: build
	$(BUILD)/cleave bench core

# Every figure and table of the papers, regenerated into out/papers/ with the report
# out/papers/report.md (docs/PAPERS.md); the CMake target `papers` of the build tree does the same.
papers: build
	$(BUILD)/cleave run experiments/papers/all.lua

# C tests under AddressSanitizer + UndefinedBehaviorSanitizer, in their own build tree, with the
# internal invariant checks after every step phase (CLEAVE_VALIDATE). The label is anchored: a bare
# `-L c` is a regex that also matched "scripts" and "bench" (Lua scripts that end with os.exit, which
# LeakSanitizer reports as leaks); the Lua side runs under valgrind in .ci/run.
sanitize: test-deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCLEAVE_SANITIZE=ON -DCLEAVE_VALIDATE=ON $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -L '^c$$' -j $(JOBS)

# libFuzzer over the mesh readers (clang), a short run per reader.
fuzz: test-deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCLEAVE_FUZZ=ON -DCLEAVE_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build build-fuzz -j $(JOBS) --target fuzz_targets
	scripts/run-fuzz.sh build-fuzz $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
