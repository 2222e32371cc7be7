# cmake -P script: builds tests/install/pkg_config/main.cpp against an installed ndcuda the way a
# Make user would, g++ ... $(pkg-config --cflags --libs ndcuda), then runs it (status 2, "no CUDA
# device", counts as a pass: the program linked and started). Prints NDCUDA_SKIP when there is no
# pkg-config. Also checks that ndcuda-linalg.pc (and ndcuda-dist.pc when installed) resolve to
# libraries that exist, and that dlpack.h comes from the install.
#   -D PREFIX -D LIBDIR (relative to PREFIX) -D CXX_COMPILER -D SOURCE -D BINARY_DIR
foreach(var PREFIX LIBDIR CXX_COMPILER SOURCE BINARY_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "pkg_config_consumer.cmake needs -D ${var}=...")
  endif()
endforeach()

find_program(pkg_config NAMES pkg-config pkgconf)
if(NOT pkg_config)
  message("NDCUDA_SKIP: pkg-config not found (Debian: apt-get install pkgconf); the ndcuda.pc test did not run")
  return()
endif()
find_program(sh NAMES sh REQUIRED)

file(REMOVE_RECURSE ${BINARY_DIR})
file(MAKE_DIRECTORY ${BINARY_DIR})
# Only the installed .pc files, so a system-wide ndcuda.pc can never be the one found.
set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${LIBDIR}/pkgconfig")
set(ENV{PKG_CONFIG_LIBDIR} "${PREFIX}/${LIBDIR}/pkgconfig")
set(ENV{CXX} "${CXX_COMPILER}")
set(ENV{PKG_CONFIG} "${pkg_config}")

function(run_step what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${BINARY_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  message("${what}:\n${out}${err}")
  set(step_rc ${rc} PARENT_SCOPE)
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step("pkg-config --cflags --libs ndcuda" ${pkg_config} --print-errors --cflags --libs ndcuda)
if(NOT step_rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not know ndcuda.pc in ${PREFIX}/${LIBDIR}/pkgconfig")
endif()
if(NOT step_output MATCHES "-I[^ ]*${PREFIX}")
  message(FATAL_ERROR "ndcuda.pc's Cflags do not name the installed include folder under ${PREFIX}")
endif()

# The user's command, through a shell as a Makefile would run it; -MD writes main.d, the list of
# headers read.
run_step("build" ${sh} -c
  "\"$CXX\" -std=c++20 -Wall -Wextra -Werror -MD -o main '${SOURCE}' $(\"$PKG_CONFIG\" --cflags --libs ndcuda)")
if(NOT step_rc EQUAL 0)
  message(FATAL_ERROR "g++ $(pkg-config --cflags --libs ndcuda) failed to build ${SOURCE}")
endif()
file(READ ${BINARY_DIR}/main.d depends)
if(depends MATCHES "interop/dlpack_array\\.hpp")
  string(REGEX MATCH "[^ \t\n\\\\]*dlpack/dlpack\\.h" dlpack_header "${depends}")
  file(REAL_PATH ${PREFIX} real_prefix)
  file(REAL_PATH ${dlpack_header} real_header)
  string(FIND "${real_header}" "${real_prefix}/" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "main.cpp read ${real_header}, not the dlpack.h installed under ${PREFIX}")
  endif()
  message("dlpack.h came from the install: ${real_header}")
endif()

run_step("run" ${BINARY_DIR}/main)
if(NOT step_rc EQUAL 0 AND NOT step_rc EQUAL 2)
  message(FATAL_ERROR "the program built through pkg-config failed (${step_rc})")
endif()
if(NOT step_output MATCHES "pkg_config_consumer: ndcuda [0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "the program built through pkg-config did not print its version line")
endif()

# The other modules: every -L folder and -l library they name must exist (they link the same way).
set(modules ndcuda-linalg)
if(EXISTS ${PREFIX}/${LIBDIR}/pkgconfig/ndcuda-dist.pc)
  list(APPEND modules ndcuda-dist)
endif()
foreach(module ${modules})
  run_step("pkg-config --libs ${module}" ${pkg_config} --print-errors --libs ${module})
  if(NOT step_rc EQUAL 0)
    message(FATAL_ERROR "pkg-config does not resolve ${module}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${step_output}")
  set(dirs "")
  foreach(flag ${flags})
    if(flag MATCHES "^-L(.+)$")
      list(APPEND dirs ${CMAKE_MATCH_1})
    elseif(flag MATCHES "^-Wl,-rpath,(.+)$")
      # A library in a system folder (NCCL from Debian's libnccl-dev) needs no -L, only its rpath.
      list(APPEND dirs ${CMAKE_MATCH_1})
    endif()
  endforeach()
  # The linker's default folders, which need no -L either.
  list(APPEND dirs /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib /lib)
  foreach(flag ${flags})
    if(flag MATCHES "^-l:?(.+)$")
      set(name ${CMAKE_MATCH_1})
      set(candidates ${name})
      if(NOT flag MATCHES "^-l:")
        set(candidates lib${name}.so lib${name}.a)
      endif()
      set(found OFF)
      foreach(dir ${dirs})
        foreach(candidate ${candidates})
          if(EXISTS ${dir}/${candidate})
            set(found ON)
          endif()
        endforeach()
      endforeach()
      # Libraries of the C runtime (dl) live in the linker's own folders.
      if(NOT found AND NOT name MATCHES "^(dl|pthread|rt|m)$")
        message(FATAL_ERROR "${module}: ${flag} names no library in ${dirs}")
      endif()
    endif()
  endforeach()
endforeach()
