# SimtOccupancyCheck.cmake - the POST_BUILD step of simt_check_occupancy
# (cmake -P): gathers the target's captured ptxas reports, runs `simt ptxas`
# on them, and fails the build (removing the target file, so that the next
# build checks again) when simt exits non-zero. Inputs: SIMT, WHERE, ARGS
# ('|'-separated), DIR, TARGET_NAME, TARGET_FILE.
file(GLOB reports "${DIR}/*.ptxas")
if(NOT reports)
  message(WARNING "simt: no ptxas reports for ${TARGET_NAME} in ${DIR} (no CUDA sources compiled?)")
  return()
endif()
list(SORT reports)
set(combined "${DIR}/all-kernels.txt")
file(WRITE "${combined}" "")
foreach(report ${reports})
  file(READ "${report}" text)
  file(APPEND "${combined}" "${text}")
endforeach()
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${SIMT}" ${WHERE} ptxas ${args} "${combined}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${TARGET_FILE}")
  message(FATAL_ERROR "simt: ${TARGET_NAME} fails its occupancy check (simt ptxas exited ${rc}); ${TARGET_FILE} removed")
endif()
