# The README's commands.  `make demo` and `make test` install what is missing
# (scripts/install-deps), configure, build and run.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test test-asan fuzz bench clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DTILEC_WERROR=ON $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/tilec demo

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DTILEC_WERROR=ON -DTILEC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

# `make bench`: tilec against OpenBLAS, oneDNN, hand-written C and PyTorch
# (docs/performance.md).  Its own Release build dir so the timed code is optimized
# and the demo/test build stays untouched; only the three drivers are built (not
# the test suite).  BENCH_ARGS go to bench/run, e.g.
# BENCH_ARGS="--family rows --kernel softmax --threads 1".
BENCH_BUILD ?= build-bench
BENCH_ARGS  ?=
bench:
	@scripts/install-deps --bench
	cmake -S . -B $(BENCH_BUILD) -DTILEC_BENCH=ON -DTILEC_WERROR=ON -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS) --target bench_gemm bench_rows bench_attention
	BENCH_BUILD=$(BENCH_BUILD) bench/run $(BENCH_ARGS)

# libFuzzer over a text form and its verifier: FUZZ_TARGET=fuzz_text (TileIR,
# seeded with every .tir file) or fuzz_xir (XIR, seeded with tests/xir/*.xir).
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGET  ?= fuzz_text
FUZZ_SEEDS_fuzz_text = examples tests/kernels
FUZZ_SEEDS_fuzz_xir  = tests/xir
# fuzz_diff (the differential fuzzer, docs/fuzzing.md) takes the same
# arguments: new reproducers go to the first directory, the seeds are replayed.
FUZZ_SEEDS_fuzz_diff = tests/fuzz/corpus/diff
fuzz: deps
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DTILEC_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGET)
	mkdir -p $(FUZZ_BUILD)/corpus-$(FUZZ_TARGET)
	$(FUZZ_BUILD)/$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  $(FUZZ_BUILD)/corpus-$(FUZZ_TARGET) $(FUZZ_SEEDS_$(FUZZ_TARGET))

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(BENCH_BUILD)
