# SimtOccupancy.cmake - fail (or warn) a CUDA build when a kernel's occupancy
# falls below a threshold or it spills too much, using simtd's `simt ptxas`.
#
#   find_package(simtd CONFIG REQUIRED)      # or: list(APPEND CMAKE_MODULE_PATH
#                                            #  <simtd>/clients/cmake) + include(SimtOccupancy)
#   add_executable(app main.cu kernels.cu)
#   simt_check_occupancy(TARGET app GPU h200-sxm BLOCK_SIZE 256 MIN_OCCUPANCY 0.5
#                        [KERNEL_BLOCK_SIZES accumulate=128 "_Z5scalePffi=512" ...]
#                        [MAX_SPILL_BYTES 0] [WARN_ONLY] [VERBOSE]
#                        [SERVER https://host] [ARCH sm_90] [SIMT /path/to/simt])
#
# How: the target's CUDA sources are compiled with -Xptxas -v through a small
# launcher (simt-ptxas-capture.sh) that keeps each object's ptxas report in
# <build>/simt-ptxas/<target>/ (removed by `clean`). After the target builds,
# a POST_BUILD step reads the reports of the target's current objects only
# (a report of a source since removed, or older than its object, is never
# read), and feeds them to `simt ptxas`, which prints registers, shared
# memory, spills, occupancy and limiter per kernel (names demangled). Below
# MIN_OCCUPANCY, or above MAX_SPILL_BYTES (spill stores plus loads), the build
# fails naming the kernel (and the target file is removed, so the next build
# checks again); with WARN_ONLY it only warns. KERNEL_BLOCK_SIZES gives
# kernels their own block size (NAME=N: mangled, demangled, or the bare
# function name). Builds are quiet: the table and the ptxas lines show only
# on failure, or always with VERBOSE (or -DSIMT_OCCUPANCY_VERBOSE=ON). A
# target may be checked any number of times (several GPUs, several block
# sizes). simt answers offline from its installed hardware database unless
# SERVER names a running simtd (its token from $SIMT_TOKEN at build time).
# The simt program is SIMT, else the imported target simtd::simt (from
# find_package(simtd)), else SIMT_EXECUTABLE, else `simt` on the PATH.
#
# LANGUAGE (default CUDA) picks whose compiler launcher captures the
# reports; other values exist for tests and for toolchains that print
# ptxas-style lines through another language's compiler.
include_guard(GLOBAL)

set(_SIMT_OCCUPANCY_DIR "${CMAKE_CURRENT_LIST_DIR}")
option(SIMT_OCCUPANCY_VERBOSE "simt_check_occupancy: print every kernel's table and the ptxas lines" OFF)

function(_simt_occupancy_program out)
  if(ARG_SIMT)
    set(${out} "${ARG_SIMT}" PARENT_SCOPE)
  elseif(TARGET simtd::simt)
    set(${out} "$<TARGET_FILE:simtd::simt>" PARENT_SCOPE)
  else()
    if(NOT SIMT_EXECUTABLE)
      find_program(SIMT_EXECUTABLE simt DOC "simtd's command-line client, for simt_check_occupancy")
    endif()
    if(NOT SIMT_EXECUTABLE)
      message(FATAL_ERROR "simt_check_occupancy: the simt program was not found; "
                          "find_package(simtd), set SIMT_EXECUTABLE or pass SIMT")
    endif()
    set(${out} "${SIMT_EXECUTABLE}" PARENT_SCOPE)
  endif()
endfunction()

function(_simt_occupancy_validate)
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
  if(DEFINED ARG_MAX_SPILL_BYTES AND NOT ARG_MAX_SPILL_BYTES MATCHES "^[0-9]+$")
    message(FATAL_ERROR "simt_check_occupancy: MAX_SPILL_BYTES must be a byte count, not '${ARG_MAX_SPILL_BYTES}'")
  endif()
  foreach(pair IN LISTS ARG_KERNEL_BLOCK_SIZES)
    if(NOT pair MATCHES "^.+=[1-9][0-9]*$")
      message(FATAL_ERROR "simt_check_occupancy: KERNEL_BLOCK_SIZES takes NAME=N, not '${pair}'")
    endif()
  endforeach()
  if(ARG_WARN_ONLY AND NOT DEFINED ARG_MIN_OCCUPANCY AND NOT DEFINED ARG_MAX_SPILL_BYTES)
    message(FATAL_ERROR "simt_check_occupancy: WARN_ONLY goes with MIN_OCCUPANCY or MAX_SPILL_BYTES")
  endif()
endfunction()

# The capture launcher, once per target whatever the number of checks.
function(_simt_occupancy_capture target lang dir quiet)
  get_target_property(done ${target} SIMT_OCCUPANCY_CAPTURED)
  if(done)
    return()
  endif()
  set_property(TARGET ${target} PROPERTY SIMT_OCCUPANCY_CAPTURED ON)
  if(lang STREQUAL "CUDA")
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--ptxas-options=-v>")
  endif()
  get_target_property(launcher ${target} ${lang}_COMPILER_LAUNCHER)
  if(NOT launcher)
    set(launcher "")
  endif()
  set_property(TARGET ${target} PROPERTY ${lang}_COMPILER_LAUNCHER
               sh "${_SIMT_OCCUPANCY_DIR}/simt-ptxas-capture.sh" "${dir}" "${target}" "${quiet}" ${launcher})
  set_property(TARGET ${target} APPEND PROPERTY ADDITIONAL_CLEAN_FILES "${dir}")
endfunction()

function(simt_check_occupancy)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "WARN_ONLY;VERBOSE"
                        "TARGET;GPU;BLOCK_SIZE;MIN_OCCUPANCY;MAX_SPILL_BYTES;SERVER;ARCH;SIMT;LANGUAGE"
                        "KERNEL_BLOCK_SIZES")
  _simt_occupancy_validate()
  _simt_occupancy_program(simt)
  if(NOT ARG_LANGUAGE)
    set(ARG_LANGUAGE CUDA)
  endif()
  set(verbose OFF)
  if(ARG_VERBOSE OR SIMT_OCCUPANCY_VERBOSE)
    set(verbose ON)
  endif()
  set(quiet 1)
  if(verbose)
    set(quiet 0)
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/simt-ptxas/${ARG_TARGET}")
  _simt_occupancy_capture(${ARG_TARGET} ${ARG_LANGUAGE} "${dir}" ${quiet})

  set(args --gpu "${ARG_GPU}" --block-size "${ARG_BLOCK_SIZE}")
  if(DEFINED ARG_MIN_OCCUPANCY)
    list(APPEND args --min-occupancy "${ARG_MIN_OCCUPANCY}")
  endif()
  if(DEFINED ARG_MAX_SPILL_BYTES)
    list(APPEND args --max-spill-bytes "${ARG_MAX_SPILL_BYTES}")
  endif()
  foreach(pair IN LISTS ARG_KERNEL_BLOCK_SIZES)
    list(APPEND args --kernel-block-size "${pair}")
  endforeach()
  if(ARG_WARN_ONLY)
    list(APPEND args --warn-only)
  endif()
  if(NOT verbose)
    list(APPEND args --quiet)
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
  get_property(calls TARGET ${ARG_TARGET} PROPERTY SIMT_OCCUPANCY_CALLS)
  if(NOT calls)
    set(calls 0)
  endif()
  math(EXPR calls "${calls} + 1")
  set_property(TARGET ${ARG_TARGET} PROPERTY SIMT_OCCUPANCY_CALLS ${calls})
  set(comment "")
  if(verbose)
    set(comment COMMENT "simt: occupancy of ${ARG_TARGET}'s kernels on ${ARG_GPU} at block size ${ARG_BLOCK_SIZE}")
  endif()
  add_custom_command(TARGET ${ARG_TARGET} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" "-DSIMT=${simt}" "-DWHERE=${where}" "-DARGS=${args}" "-DDIR=${dir}"
            "-DTARGET_NAME=${ARG_TARGET}" "-DTARGET_FILE=$<TARGET_FILE:${ARG_TARGET}>"
            "-DOBJECTS=$<JOIN:$<TARGET_OBJECTS:${ARG_TARGET}>,|>" "-DTAG=${calls}"
            -P "${_SIMT_OCCUPANCY_DIR}/SimtOccupancyCheck.cmake"
    ${comment}
    VERBATIM)
endfunction()
