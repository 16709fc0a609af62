# The embed step (backends/cuda/embed_sources.cmake) on a scratch tree: a source's
# `#include "x.cuh"` lines are replaced by the shared headers, framed by #line directives that
# give the source's own line numbers back; a missing header, or a shared header that includes
# another, stops the build with a message naming both files.
#   cmake -DEMBED=<embed_sources.cmake> -DSCRATCH=<dir> -P check_embed.cmake
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}/src" "${SCRATCH}/inc")
file(WRITE "${SCRATCH}/inc/one.cuh" "#define ONE 1\n")
file(WRITE "${SCRATCH}/inc/two.cuh" "#define TWO 2\n#define TWO_TOO 2\n")
file(WRITE "${SCRATCH}/src/k.cu"
     "// line 1\n#include \"one.cuh\"\n#include \"two.cuh\"\nint after_includes; // line 4\n")

function(embed glob expect_ok)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSRC_GLOB=${glob} -DINC_DIR=${SCRATCH}/inc
                          -DOUT=${SCRATCH}/out.h -P ${EMBED}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expect_ok AND NOT rc EQUAL 0)
    message(FATAL_ERROR "embedding ${glob} failed: ${err}")
  elseif(NOT expect_ok AND rc EQUAL 0)
    message(FATAL_ERROR "embedding ${glob} succeeded; it should have failed")
  endif()
  string(REGEX REPLACE "[ \n]+" " " err "${err}") # CMake wraps its messages
  set(embed_err "${err}" PARENT_SCOPE)
endfunction()

# The generated header holds the text as bytes: decode them back.
embed("${SCRATCH}/src/*.cu" TRUE)
file(READ "${SCRATCH}/out.h" header)
string(REGEX MATCH "rt_cuda_embedded_k_cu\\[\\] = {([^}]*)}" array "${header}")
string(REGEX MATCHALL "0x[0-9a-f][0-9a-f]" bytes "${CMAKE_MATCH_1}")
set(text "")
foreach(b ${bytes})
  if(NOT b STREQUAL "0x00")
    math(EXPR code "${b}")
    string(ASCII ${code} c)
    string(APPEND text "${c}")
  endif()
endforeach()
set(want "// line 1\n#line 1 \"one.cuh\"\n#define ONE 1\n#line 3 \"k.cu\"\n#line 1 \"two.cuh\"\n#define TWO 2\n#define TWO_TOO 2\n#line 4 \"k.cu\"\nint after_includes; // line 4\n")
if(NOT text STREQUAL want)
  message(FATAL_ERROR "embedded text:\n${text}\nexpected:\n${want}")
endif()

file(WRITE "${SCRATCH}/src/missing.cu" "#include \"absent.cuh\"\n")
embed("${SCRATCH}/src/missing.cu" FALSE)
if(NOT embed_err MATCHES "missing.cu includes absent.cuh, which is not in")
  message(FATAL_ERROR "unexpected message for a missing header: ${embed_err}")
endif()

file(WRITE "${SCRATCH}/inc/nested.cuh" "#include \"one.cuh\"\n")
file(WRITE "${SCRATCH}/src/nested.cu" "#include \"nested.cuh\"\n")
embed("${SCRATCH}/src/nested.cu" FALSE)
if(NOT embed_err MATCHES "nested.cuh includes a file")
  message(FATAL_ERROR "unexpected message for a nested include: ${embed_err}")
endif()
message(STATUS "embed: includes inlined with their line numbers; missing and nested headers refused")
