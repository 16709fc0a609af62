# The plugin must export rooftune_plugin_entry and nothing else: its private copies of rt_core and
# rt_kernels must never interpose on the host binary's own symbols.
#   cmake -DNM=<nm> -DPLUGIN=<librooftune_cuda.so> -P check_exports.cmake
execute_process(COMMAND ${NM} -D --defined-only ${PLUGIN} OUTPUT_VARIABLE out RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${PLUGIN}: ${err}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(exported "")
foreach(line ${lines})
  # "<address> <type> <name>": text, data and read-only data symbols are exports.
  if(line MATCHES "^[0-9a-fA-F]+ [TDRBVWi] ([^ ]+)$")
    list(APPEND exported ${CMAKE_MATCH_1})
  endif()
endforeach()
if(NOT exported STREQUAL "rooftune_plugin_entry")
  message(FATAL_ERROR "librooftune_cuda.so exports [${exported}], expected only rooftune_plugin_entry")
endif()
message(STATUS "exports: ${exported}")
