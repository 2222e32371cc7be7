# Sets NDCUDA_NVML_INCLUDE_DIR to the folder holding nvml.h (or leaves it NOTFOUND): the CUDA
# toolkit's include folders first, then the Python wheel nvidia-nvml-dev-cu12 when python3 has it.
set(ndcuda_nvml_hints ${CUDAToolkit_INCLUDE_DIRS})
find_program(ndcuda_python3 python3)
if(ndcuda_python3)
  execute_process(
    COMMAND ${ndcuda_python3} -c "import nvidia.nvml_dev as m; print(list(m.__path__)[0] + '/include')"
    OUTPUT_VARIABLE ndcuda_nvml_wheel_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE ndcuda_nvml_rc)
  if(ndcuda_nvml_rc EQUAL 0)
    list(APPEND ndcuda_nvml_hints ${ndcuda_nvml_wheel_dir})
  endif()
endif()
find_path(NDCUDA_NVML_INCLUDE_DIR nvml.h HINTS ${ndcuda_nvml_hints} DOC "Folder holding NVML's nvml.h")

# ndcuda_use_nvml_header(<source>...): those files (the ones that include src/device/nvml.hpp, in the
# library and in its tests alike, so both agree on NVML's types) see nvml.h as a system header and
# NDCUDA_HAVE_NVML_H. Nothing when no nvml.h was found.
function(ndcuda_use_nvml_header)
  if(NDCUDA_NVML_INCLUDE_DIR)
    set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_DEFINITIONS NDCUDA_HAVE_NVML_H=1)
    set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_OPTIONS -isystem ${NDCUDA_NVML_INCLUDE_DIR})
  endif()
endfunction()
