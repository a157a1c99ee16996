# SimtOccupancy.cmake - fail (or warn) a CUDA build when a kernel's occupancy
# falls below a threshold, using simtd's `simt ptxas`.
#
#   list(APPEND CMAKE_MODULE_PATH /path/to/simtd/clients/cmake)
#   include(SimtOccupancy)
#   add_executable(app main.cu kernels.cu)
#   simt_check_occupancy(TARGET app GPU h200-sxm BLOCK_SIZE 256 MIN_OCCUPANCY 0.5
#                        [WARN_ONLY] [SERVER http://host:8080] [ARCH sm_90] [SIMT /path/to/simt])
#
# How: the target's CUDA sources are compiled with -Xptxas -v through a small
# launcher (simt-ptxas-capture.sh) that keeps each object's ptxas report in
# <build>/simt-ptxas/<target>/; after the target builds, a POST_BUILD step
# feeds those reports to `simt ptxas --gpu GPU --block-size N
# --min-occupancy F`, which prints every kernel's registers, shared memory,
# occupancy and limiter. Below the threshold the build fails naming the
# kernel (and the target file is removed, so the next build checks again);
# with WARN_ONLY it only warns. simt answers offline from its bundled
# hardware database unless SERVER names a running simtd. The simt binary is
# SIMT, else the cache variable SIMT_EXECUTABLE, else `simt` on the PATH.
include_guard(GLOBAL)

set(_SIMT_OCCUPANCY_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(simt_check_occupancy)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "WARN_ONLY" "TARGET;GPU;BLOCK_SIZE;MIN_OCCUPANCY;SERVER;ARCH;SIMT" "")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "simt_check_occupancy: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required TARGET GPU BLOCK_SIZE)
    if(NOT ARG_${required})
      message(FATAL_ERROR "simt_check_occupancy: ${required} is required")
    endif()
  endforeach()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "simt_check_occupancy: no target named ${ARG_TARGET}")
  endif()
  if(NOT ARG_BLOCK_SIZE MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "simt_check_occupancy: BLOCK_SIZE must be a positive integer, not '${ARG_BLOCK_SIZE}'")
  endif()
  if(DEFINED ARG_MIN_OCCUPANCY AND NOT ARG_MIN_OCCUPANCY MATCHES "^(0|1|0?\\.[0-9]+|1\\.0*)$")
    message(FATAL_ERROR "simt_check_occupancy: MIN_OCCUPANCY must be a fraction 0..1, not '${ARG_MIN_OCCUPANCY}'")
  endif()
  if(ARG_WARN_ONLY AND NOT DEFINED ARG_MIN_OCCUPANCY)
    message(FATAL_ERROR "simt_check_occupancy: WARN_ONLY goes with MIN_OCCUPANCY")
  endif()

  set(simt "${ARG_SIMT}")
  if(NOT simt)
    if(NOT SIMT_EXECUTABLE)
      find_program(SIMT_EXECUTABLE simt DOC "simtd's command-line client, for simt_check_occupancy")
    endif()
    set(simt "${SIMT_EXECUTABLE}")
  endif()
  if(NOT simt)
    message(FATAL_ERROR "simt_check_occupancy: the simt program was not found; set SIMT_EXECUTABLE or pass SIMT")
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/simt-ptxas/${ARG_TARGET}")
  target_compile_options(${ARG_TARGET} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--ptxas-options=-v>")
  get_target_property(launcher ${ARG_TARGET} CUDA_COMPILER_LAUNCHER)
  if(NOT launcher)
    set(launcher "")
  endif()
  set_property(TARGET ${ARG_TARGET} PROPERTY CUDA_COMPILER_LAUNCHER
               sh "${_SIMT_OCCUPANCY_DIR}/simt-ptxas-capture.sh" "${dir}" ${launcher})

  set(args --gpu "${ARG_GPU}" --block-size "${ARG_BLOCK_SIZE}")
  if(DEFINED ARG_MIN_OCCUPANCY)
    list(APPEND args --min-occupancy "${ARG_MIN_OCCUPANCY}")
  endif()
  if(ARG_WARN_ONLY)
    list(APPEND args --warn-only)
  endif()
  if(ARG_ARCH)
    list(APPEND args --arch "${ARG_ARCH}")
  endif()
  if(ARG_SERVER)
    set(where --server "${ARG_SERVER}")
  else()
    set(where --offline)
  endif()
  string(REPLACE ";" "|" args "${args}")
  add_custom_command(TARGET ${ARG_TARGET} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" "-DSIMT=${simt}" "-DWHERE=${where}" "-DARGS=${args}" "-DDIR=${dir}"
            "-DTARGET_NAME=${ARG_TARGET}" "-DTARGET_FILE=$<TARGET_FILE:${ARG_TARGET}>"
            -P "${_SIMT_OCCUPANCY_DIR}/SimtOccupancyCheck.cmake"
    COMMENT "simt: occupancy of ${ARG_TARGET}'s kernels on ${ARG_GPU} at block size ${ARG_BLOCK_SIZE}"
    VERBATIM)
endfunction()
