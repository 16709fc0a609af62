#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors and AddressSanitizer +
# UndefinedBehaviorSanitizer, and runs every test. Prints ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."

# Chromium renders the HTML report in its test (tests/regress/test_report_html.sh); without it that
# test only runs its static checks and reports itself skipped. ROOFTUNE_WITH_CHROMIUM=0 leaves it out.
ROOFTUNE_WITH_CHROMIUM=${ROOFTUNE_WITH_CHROMIUM:-1} bash ci/install-deps.sh
build=${ROOFTUNE_TEST_BUILD:-build-test}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DROOFTUNE_WERROR=ON -DROOFTUNE_SANITIZE=ON \
  >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
sed -n '/rooftune configuration/,/sanitizers/p' "$build.configure.log"
cmake --build "$build" -j"$(nproc)"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI and the CUDA libraries keep memory until exit on purpose; leaks are checked in our own
# code by the tests that do not start MPI (they run with the default detect_leaks=1).
cd "$build"
ctest --output-on-failure -j"$(nproc)" --timeout 600 2>&1 | tee ctest.log
grep -E "tests passed|tests failed" ctest.log | tail -n 1
