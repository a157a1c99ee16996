# SimtOccupancyCheck.cmake - the POST_BUILD step of simt_check_occupancy
# (cmake -P): reads the ptxas reports of the target's current objects (and
# only those: a report of a source since removed, or one older than its
# object, is not read), runs `simt ptxas` on them, and fails the build
# (removing the target file, so that the next build checks again) when simt
# exits non-zero. Inputs: SIMT, WHERE, ARGS ('|'-separated), DIR, TARGET_NAME,
# TARGET_FILE, OBJECTS ('|'-separated $<TARGET_OBJECTS>), TAG (which call).
string(REPLACE "|" ";" objects "${OBJECTS}")
set(reports "")
foreach(object IN LISTS objects)
  string(REGEX REPLACE "^.*/${TARGET_NAME}\\.dir/" "" rel "${object}")
  string(REGEX REPLACE "[/\\\\: ]" "_" name "${rel}")
  set(report "${DIR}/${name}.ptxas")
  if(NOT EXISTS "${report}")
    continue()  # not a CUDA object, or compiled before the check was added
  endif()
  if(EXISTS "${object}" AND NOT "${report}" IS_NEWER_THAN "${object}")
    message(STATUS "simt: ${report} is older than ${object}; not read")
    continue()
  endif()
  list(APPEND reports "${report}")
endforeach()
if(NOT reports)
  message(WARNING "simt: no current ptxas reports for ${TARGET_NAME} in ${DIR} (no CUDA sources compiled "
                  "since simt_check_occupancy was added? touch them, or build after `clean`)")
  return()
endif()
set(combined "${DIR}/all-kernels-${TAG}.txt")
file(WRITE "${combined}" "")
foreach(report IN LISTS reports)
  file(READ "${report}" text)
  file(APPEND "${combined}" "${text}")
endforeach()
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${SIMT}" ${WHERE} ptxas ${args} "${combined}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${TARGET_FILE}")
  message(FATAL_ERROR "simt: ${TARGET_NAME} fails its occupancy check (simt ptxas exited ${rc}); "
                      "${TARGET_FILE} removed")
endif()
