# SPDX-License-Identifier: GPL-3.0-or-later
# Included by ctest after a folder's tests are listed: gives each test half_cores.cmake names its share
# (PROCESSORS). Names of other folders' tests are ignored here.
include(${CMAKE_CURRENT_LIST_DIR}/half_cores.cmake)
foreach(entry IN LISTS RM_TEST_HALF_CORES)
  string(FIND "${entry}" "=" at REVERSE)
  string(SUBSTRING "${entry}" 0 ${at} name)
  math(EXPR from "${at} + 1")
  string(SUBSTRING "${entry}" ${from} -1 slots)
  set_tests_properties("${name}" PROPERTIES PROCESSORS ${slots})
endforeach()
