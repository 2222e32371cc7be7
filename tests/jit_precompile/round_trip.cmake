# Record -> precompile -> check, each a fresh process (tests/CMakeLists.txt):
#   PROBE (tests/jit_precompile/probe.cpp), PRECOMPILE (ndcuda-precompile), WORK (a scratch folder).
# 1. The probe builds its kernels with the disk cache off and NDCUDA_JIT_RECORD on.
# 2. ndcuda-precompile fills an empty cache folder from the record for the recorded targets; a
#    second run finds them all there and compiles nothing. Then it adds sm_80 and sm_90 (on a GPU
#    machine the record also holds the GPU's own kernels, which sm_80 has not seen yet), and once
#    more: nothing compiled.
# 3. The probe builds the same kernels from that folder with NDCUDA_JIT_LOG=1: nothing compiled,
#    and the log names each kernel as found in the disk cache.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(record ${WORK}/kernels.rec)
set(cache ${WORK}/cache)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${what}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit status ${rc})")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

run("record" ${CMAKE_COMMAND} -E env NDCUDA_CACHE=0 NDCUDA_JIT_RECORD=${record} ${PROBE} record)
file(READ ${record} recorded LIMIT 64)
if(NOT recorded MATCHES "^ndcuda-jit-record 1\n")
  message(FATAL_ERROR "the record does not start with its header: '${recorded}'")
endif()

run("precompile (recorded targets)" ${PRECOMPILE} --record ${record} --cache ${cache})
if(NOT out MATCHES "kernels: [1-9][0-9]* compiled, 0 already cached, 0 skipped")
  message(FATAL_ERROR "the first precompile compiled nothing")
endif()
function(expect_nothing_compiled what)
  if(NOT out MATCHES " 0 compiled, [1-9][0-9]* already cached, 0 skipped")
    message(FATAL_ERROR "${what} compiled again what was cached")
  endif()
endfunction()
run("precompile again" ${PRECOMPILE} --record ${record} --cache ${cache})
expect_nothing_compiled("the second precompile")
run("precompile (sm_80, sm_90)" ${PRECOMPILE} --record ${record} --cache ${cache} --arch 80 --arch 90)
run("precompile (sm_80, sm_90) again" ${PRECOMPILE} --record ${record} --cache ${cache} --arch 80 --arch 90)
expect_nothing_compiled("the second sm_80/sm_90 precompile")

run("check" ${CMAKE_COMMAND} -E env NDCUDA_CACHE_DIR=${cache} NDCUDA_JIT_LOG=1 NDCUDA_JIT_RECORD= ${PROBE} check)
if(NOT err MATCHES "ndcuda jit: probe_scale for sm_90: disk cache" OR
   NOT err MATCHES "ndcuda jit: probe_fma__c[^ ]* for sm_80: disk cache, [0-9.]+ ms, [0-9]+ source lines: out = x \\* y \\+ 1.5f")
  message(FATAL_ERROR "NDCUDA_JIT_LOG did not report the kernels as read from the disk cache")
endif()

# A malformed record is refused with a message, not a crash.
file(WRITE ${WORK}/bad.rec "ndcuda-jit-record 1\nbegin 0\n\nsource 999999\nshort\n")
execute_process(COMMAND ${PRECOMPILE} --record ${WORK}/bad.rec --cache ${cache} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "not a valid ndcuda kernel record at byte")
  message(FATAL_ERROR "a malformed record was not refused: exit ${rc}, '${err}'")
endif()
file(REMOVE_RECURSE ${WORK})
