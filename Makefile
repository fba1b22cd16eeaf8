# The README's commands.  `make demo` and `make test` install what is missing
# (scripts/install-deps), configure, build and run.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test test-asan test-tsan fuzz bench check-model install clean

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

# `make install PREFIX=/opt/tilec` (default /usr/local; DESTDIR=... stages the
# install under another root): the CLI, headers, libtilec.so and libtilec.a,
# tilec.pc and the CMake package (docs/install.md).
PREFIX ?= /usr/local
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix $(PREFIX)

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DTILEC_WERROR=ON -DTILEC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

# `make test-tsan`: ThreadSanitizer over the runtime (tests/rt) and facade
# (tests/tilec) tests, with tests/tilec/test_threads at 100 rounds per thread.
# Its own build dir; only those tests are built.  LLVM is not instrumented;
# tests/tsan.supp suppresses what TSan reports inside LLVM (each entry says
# why), never tilec's own code.
TSAN_BUILD ?= build-tsan
TSAN_TARGETS = $(foreach f,$(wildcard tests/rt/test_*.c tests/tilec/test_*.c),\
  test_$(notdir $(patsubst %/,%,$(dir $f)))_$(patsubst test_%.c,%,$(notdir $f)))
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -DTILEC_WERROR=ON -DTILEC_TSAN=ON $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TARGETS)
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	TILEC_THREAD_ROUNDS=100 ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS) -R '^(rt|tilec)\.'

# `make bench`: tilec against OpenBLAS, oneDNN, hand-written C, PyTorch
# (eager, Inductor), JAX and Halide (docs/performance.md).  Its own Release build dir so the timed code is optimized
# and the demo/test build stays untouched; only the three drivers are built (not
# the test suite).  BENCH_ARGS go to bench/run, e.g.
# BENCH_ARGS="--family rows --kernel softmax --threads 1".
BENCH_BUILD ?= build-bench
BENCH_ARGS  ?=
bench:
	@scripts/install-deps --bench
	cmake -S . -B $(BENCH_BUILD) -DTILEC_BENCH=ON -DTILEC_WERROR=ON -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS) --target bench_gemm bench_gemv bench_rows bench_attention tilec_shared
	BENCH_BUILD=$(BENCH_BUILD) bench/run $(BENCH_ARGS)

# The Llama decoder (tilec.models.llama, docs/models.md) against transformers'
# LlamaForCausalLM, live: the tiny config in each weight form (logits within
# 1e-4, the same greedy tokens), the logits `make test` checks against
# (models/llama/reference/tiny.npz) still what transformers gives, and a
# checkpoint transformers saved (config.json, safetensors) read by --model.  Needs
# the bench environment's torch and transformers (scripts/install-deps --bench).
check-model: build
	@scripts/install-deps --bench
	for w in f32 bf16 q8; do TILEC_PYTHON=$(BENCH_BUILD)/venv/bin/python $(BUILD)/tilec generate --check --weights $$w || exit 1; done
	PYTHONPATH=python $(BENCH_BUILD)/venv/bin/python models/llama/reference/make_reference.py --compare
	PYTHONPATH=python $(BENCH_BUILD)/venv/bin/python -c 'from tilec.models import llama; \
	  llama.transformers_model(llama.TINY, llama.random_weights(llama.TINY, 3)).save_pretrained("$(BUILD)/tiny-checkpoint")'
	TILEC_PYTHON=$(BENCH_BUILD)/venv/bin/python $(BUILD)/tilec generate --model $(BUILD)/tiny-checkpoint --check

# `make fuzz FUZZ_TARGET=NAME FUZZ_SECONDS=60`: libFuzzer (needs clang) with
# ASan and UBSan in its own build dir.  The targets, tests/fuzz/NAME.c, and
# their seed corpora (FUZZ_SEEDS_NAME):
#   fuzz_text  TileIR text: parse, verify, print and re-parse to the same text;
#              seeds: every .tir file (examples/, tests/kernels/) and its
#              reproducers (tests/fuzz/corpus/text)
#   fuzz_xir   XIR text: parse and print round trip, verify, cleanup;
#              seeds: tests/xir/*.xir
#   fuzz_npy   the .npy reader on a file and on a pipe (they must agree) and
#              `tilec run --in`'s loader; memory bounded by the input (the
#              target's allocator, -malloc_limit_mb); seeds: tests/fuzz/corpus/npy
#              (tiny np.save-layout files, tests/fuzz/make_npy_seeds.py)
#   fuzz_cli   the tilec command line up to reading FILE.tir: dispatch, help,
#              every subcommand's options (parse only, nothing runs; its usage
#              errors silenced); seeds: tests/fuzz/corpus/cli, one argument a line
#   fuzz_diff  native code against the reference interpreter on generated
#              kernels (a driver of its own with libFuzzer-style arguments,
#              docs/fuzzing.md); seeds: tests/fuzz/corpus/diff, its regression
#              reproducers (replayed by ctest fuzz.diff_corpus)
# New inputs go to $(FUZZ_BUILD)/corpus-NAME.  A crash leaves crash-* here:
# fix it and keep the reproducer in a seed directory of the target under
# tests/fuzz/corpus/ (listed in its FUZZ_SEEDS line).  `make test`
# replays every FUZZ_SEEDS directory through the same entry in the normal
# build (ctest fuzz.NAME, tests/fuzz/replay.c; fuzz_diff: fuzz.diff_corpus), reading the FUZZ_SEEDS_ lines
# below, so keep each on one line.  FUZZ_FLAGS_NAME: the target's own flags.
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TIMEOUT ?= 10
FUZZ_TARGET  ?= fuzz_text
FUZZ_SEEDS_fuzz_text = examples tests/kernels tests/fuzz/corpus/text
FUZZ_SEEDS_fuzz_xir = tests/xir
FUZZ_SEEDS_fuzz_npy = tests/fuzz/corpus/npy
FUZZ_SEEDS_fuzz_cli = tests/fuzz/corpus/cli
FUZZ_FLAGS_fuzz_npy = -malloc_limit_mb=16
FUZZ_FLAGS_fuzz_cli = -malloc_limit_mb=16 -close_fd_mask=3
# fuzz_diff (the differential fuzzer, docs/fuzzing.md) takes the same
# arguments: new reproducers go to the first directory, the seeds are replayed.
FUZZ_SEEDS_fuzz_diff = tests/fuzz/corpus/diff
fuzz: deps
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DTILEC_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGET)
	mkdir -p $(FUZZ_BUILD)/corpus-$(FUZZ_TARGET)
	$(FUZZ_BUILD)/$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=$(FUZZ_TIMEOUT) \
	  $(FUZZ_FLAGS_$(FUZZ_TARGET)) $(FUZZ_BUILD)/corpus-$(FUZZ_TARGET) $(FUZZ_SEEDS_$(FUZZ_TARGET))

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD) $(BENCH_BUILD)
