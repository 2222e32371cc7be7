# Runs PROGRAM (with ARGUMENT, when given) RUNS times; fails unless every run exits with status 0, prints its last line and
# shows no sign of a crash or std::terminate. Prints NDCUDA_SKIP (ctest: skipped) without a GPU.
foreach(run RANGE 1 ${RUNS})
  execute_process(COMMAND ${PROGRAM} ${ARGUMENT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(out MATCHES "NDCUDA_SKIP")
    message("${out}")
    return()
  endif()
  if(NOT rc STREQUAL "0" OR NOT out MATCHES "clean-exit: main returns" OR
     err MATCHES "terminate called|Segmentation|Aborted|free\\(\\)|corrupted")
    message(FATAL_ERROR "run ${run} of ${RUNS} did not exit cleanly (status '${rc}')\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endforeach()
message("all ${RUNS} runs exited cleanly")
