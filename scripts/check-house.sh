#!/usr/bin/env bash
# check-house.sh — the house rules of the source tree, checked (`make test`
# runs it as the ctest `house`; tests/cli/house.sh plants one violation of
# each rule in a scratch copy and expects this script to name it).
#
#   scripts/check-house.sh [DIR]     DIR: a git checkout (default: this one)
#
# Rules (docs/architecture.md "House rules"):
#   layers         each src/ folder includes only the folders below it
#   ir-below-tir   xir, codegen, simd, gpu and rt see nothing of TileIR
#   rt-no-tir      the runtime library (TILEC_RT_SOURCES) links nothing of tir/
#   public-only    tools/, bench/ and python/ include the public headers only
#                  (the CLI also base/)
#   option-words   the option words (auto|on|off, ...) are read in src/options only
#   stage-callers  the stage functions are called by the driver, their own
#                  layer and its unit tests only (everything else, the
#                  fuzzers and other tests included, runs the pipeline)
#   option-copies  no struct of src/ or tools/ repeats the compile options
#                  record: none declares members named after two or more of
#                  its fields (stages read the record, plus the facts
#                  earlier stages decided)
#   one-compile-c  no two files share the name compile.c
#   citations      no citation of documents that are not in the repository
#   dead-functions every external function of src/ is referenced somewhere
# Exit 0 when every rule holds, else 1 after one line per violation.
set -uo pipefail
DIR=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$DIR" || exit 2
git rev-parse --git-dir >/dev/null 2>&1 || { echo "check-house: $DIR is not a git checkout" >&2; exit 2; }
VIOLATIONS=0

violation() { # RULE MESSAGE
  echo "house: $1: $2"
  VIOLATIONS=$((VIOLATIONS + 1))
}

# Tracked files plus new ones not ignored: what the next commit would hold.
files() { git ls-files -co --exclude-standard -- "$@"; }

# ---- layers ----
# The folders each src/ folder may include besides itself; every folder may
# include the public headers (include/tilec, written "tilec/NAME.h").
declare -A BELOW=(
  [base]=""
  [scalar]="base"
  [options]="base"
  [tir]="base scalar"
  [xir]="base scalar"
  [rt]="base scalar"
  [rewrite]="base scalar tir"
  [realize]="base scalar tir rewrite"
  [plan]="base scalar options tir rewrite realize"
  [lower]="base scalar tir xir rewrite realize"
  [codegen]="base scalar xir"
  [simd]="base scalar xir codegen"
  [gpu]="base scalar options xir codegen"
  [driver]="base scalar options tir xir rt rewrite realize plan lower codegen simd gpu"
  [api]="base scalar options tir xir rt rewrite realize plan lower codegen simd gpu driver"
)
check_layers() {
  local file dir inc top
  while IFS= read -r file; do
    dir=${file#src/}
    dir=${dir%%/*}
    if [ -z "${BELOW[$dir]+set}" ]; then
      violation layers "$file: the folder src/$dir has no place in the layers (add it to check-house.sh)"
      continue
    fi
    while IFS= read -r inc; do
      top=${inc%%/*}
      if [ "$top" = tilec ]; then
        [ -e "include/$inc" ] || violation layers "$file includes \"$inc\", which is not a public header"
      elif [ "$top" != "$dir" ] && [[ " ${BELOW[$dir]} " != *" $top "* ]]; then
        violation layers "$file includes \"$inc\": src/$dir may include only ${BELOW[$dir]:-nothing} below it"
      fi
    done < <(sed -nE 's/^#include "([a-z_]+\/[a-z_]+\.(h|def))".*/\1/p' "$file")
  done < <(files 'src/*.c' 'src/*.h' 'src/*.def')
}

check_ir_below_tir() {
  local hit
  while IFS= read -r hit; do
    violation ir-below-tir "$hit"
  done < <(git grep --untracked -nE '#include "(tir/|tilec/tir\.h)' -- src/xir src/codegen src/simd src/gpu src/rt 2>/dev/null)
}

check_rt_no_tir() {
  if sed -n '/TILEC_RT_SOURCES/,/endforeach/p' CMakeLists.txt | grep -q 'tir/'; then
    violation rt-no-tir "CMakeLists.txt: TILEC_RT_SOURCES names a file of src/tir"
  fi
}

# ---- what the programs beside the library see: its public headers ----
check_public_only() {
  local hit file inc
  while IFS= read -r hit; do
    file=${hit%%:*}
    inc=$(sed -nE 's/.*#include "([a-z_]+)\/.*/\1/p' <<<"$hit")
    case "$file:$inc" in
      *:tilec) ;;
      tools/*:base) ;;
      *) violation public-only "$hit (tools, bench and python see include/tilec only; the CLI also base/)" ;;
    esac
  done < <(git grep --untracked -nE '^#include "[a-z_]+/' -- tools bench python 2>/dev/null)
}

# ---- option words: read in src/options/options.c only ----
check_option_words() {
  local file
  while IFS= read -r file; do
    [ "$file" = src/options/options.c ] || violation option-words "$file spells option words (read them with tilec_compile_options_set)"
  done < <(git grep --untracked -lE '"on", *"off"|"cached", *"streaming"|"cpu", *"cuda"' -- src tools tests bench python 2>/dev/null)
}

# ---- the stage functions and who may call them ----
# FUNCTION:FOLDER — src/FOLDER and src/driver call it, and the unit tests
# of that layer (tests/FOLDER); the CLI, the bench, the fuzzers, the other
# layers and their tests run the pipeline (a test that needs two stages
# goes through src/driver/pipeline.h).  tests/cli/house.sh only spells a
# call, to plant it.
STAGES="plan_kernel:plan lower_kernel:lower simd_compile:simd simd_compile_cached:simd gpu_compile:gpu"
check_stage_callers() {
  local entry fn home file
  for entry in $STAGES; do
    fn=${entry%%:*}
    home=${entry#*:}
    while IFS= read -r file; do
      case "$file" in
        src/driver/* | "src/$home/"* | "tests/$home/"* | tests/cli/house.sh) ;;
        *) violation stage-callers "$file calls $fn (run the pipeline: src/driver/pipeline.h)" ;;
      esac
    done < <(git grep --untracked -lE "\\b$fn\\(" -- src tools bench python tests 2>/dev/null)
  done
}

# ---- option copies: the record's fields repeated in a struct of src/ or tools/ ----
# The fields of tilec_compile_options (include/tilec/tilec.h), less the
# names that also name a fact a stage decides or a thing it owns (the plan's
# block_size and local_lanes, a kernel's runtime and threads, a target, a
# width, a task grain, a cost, a pack or a split): a struct with members
# named after two or more of the rest copies the record.
OPTION_FACT_NAMES="block_size local_lanes blocks_per_task runtime threads target width cost pack split"
check_option_copies() {
  local hit
  while IFS= read -r hit; do
    violation option-copies "$hit (read the record: tilec_compile_options)"
  done < <(files 'src/*.c' 'src/*.h' 'tools/*.c' 'tools/*.h' | OPTION_FACT_NAMES=$OPTION_FACT_NAMES xargs -r perl -e '
    use strict;
    sub strip { my $t = shift; $t =~ s{/\*.*?\*/}{ (my $c = $&) =~ tr/\n//cd; $c }gse; $t =~ s{//[^\n]*}{}g; $t }
    sub members { # the names a struct body declares at its own depth
      my $b = shift; my @n;
      1 while $b =~ s/\{[^{}]*\}//s;
      for my $d (split /;/, $b) {
        $d =~ s/\[[^\]]*\]//g; $d =~ s/:\s*\d+\s*$//;
        for my $p (split /,/, $d) { push @n, $1 if $p =~ /([A-Za-z_]\w*)\s*\)?\s*(?:\([^()]*\))?\s*$/ }
      }
      @n;
    }
    my $read = sub { open my $h, "<", shift or return ""; local $/; strip(<$h>) };
    my $record = $read->("include/tilec/tilec.h");
    $record =~ /typedef struct \{((?:[^{}]|\{[^{}]*\})*)\}\s*tilec_compile_options;/s or die "no tilec_compile_options\n";
    my %field = map { $_ => 1 } members($1);
    delete @field{split " ", $ENV{OPTION_FACT_NAMES}};
    for my $f (@ARGV) {
      my $t = $read->($f);
      while ($t =~ /\bstruct\s*(\w*)\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}\s*(\w*)/gs) {
        my ($tag, $body, $name) = ($1, $2, $3);
        my $line = 1 + (substr($t, 0, $-[0]) =~ tr/\n//);
        my %seen;
        my @hit = grep { $field{$_} && !$seen{$_}++ } members($body);
        print "$f:$line: struct ", ($name || $tag || "?"), " copies ", join(", ", @hit), "\n" if @hit >= 2;
      }
    }')
}

check_one_compile_c() {
  local hit
  while IFS= read -r hit; do
    violation one-compile-c "$hit: name the file by its job"
  done < <(files '*/compile.c')
}

check_citations() {
  local hit
  while IFS= read -r hit; do
    violation citations "$hit"
  done < <(git grep --untracked -nE "seed [0-9]{3}|seed §|seed's|xir-simd-notes|DESIGN\.md|[Ii]ssue [0-9]+" -- src tools tests bench include docs python 2>/dev/null)
}

# ---- dead functions: an external function of src/ nobody names ----
check_dead_functions() {
  local defined statics public counts name
  defined=$(files 'src/*.c' | xargs sed -nE 's/^[a-z_][a-z0-9_ *]*[ *]([a-z_][a-z0-9_]*)\(.*/\1/p' | sort -u)
  # a static function is its file's business (the compiler warns when unused)
  statics=$(files 'src/*.c' | xargs sed -nE 's/^static [^=;(]*[ *]([a-z_][a-z0-9_]*)\(.*/\1/p' | sort -u)
  # the public API is used by programs outside the tree
  public=$(git grep --untracked -hoE '\b(tilec|tir)_[a-z0-9_]+\(' -- include | tr -d '(' | sort -u)
  counts=$(git grep --untracked -hoE '\b[a-z_][a-z0-9_]*\b' -- src tools tests bench python | sort | uniq -c)
  for name in $(comm -23 <(comm -23 <(echo "$defined") <(echo "$statics")) <(echo "$public")); do
    # two mentions: a definition and its declaration, nothing else
    if [ "$(awk -v n="$name" '$2 == n {print $1}' <<<"$counts")" -le 2 ]; then
      violation dead-functions "$name is defined but never used"
    fi
  done
}

check_layers
check_ir_below_tir
check_rt_no_tir
check_public_only
check_option_words
check_stage_callers
check_option_copies
check_one_compile_c
check_citations
check_dead_functions

if [ "$VIOLATIONS" -ne 0 ]; then
  echo "check-house: $VIOLATIONS violation(s)" >&2
  exit 1
fi
echo "check-house: every rule holds"
