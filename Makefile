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

.PHONY: all deps test-deps build run test install bench sanitize fuzz clean

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

install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

bench: build
	$(BUILD)/cleave bench core

# C tests under AddressSanitizer + UndefinedBehaviorSanitizer, in their own build tree, with the
# internal invariant checks after every step phase (CLEAVE_VALIDATE).
sanitize: test-deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCLEAVE_SANITIZE=ON -DCLEAVE_VALIDATE=ON $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -L c -j $(JOBS)

# libFuzzer over the mesh readers (clang), a short run per reader.
fuzz: test-deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCLEAVE_FUZZ=ON -DCLEAVE_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build build-fuzz -j $(JOBS) --target fuzz_targets
	scripts/run-fuzz.sh build-fuzz $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
