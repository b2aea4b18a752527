# SPDX-License-Identifier: GPL-3.0-or-later
# The torch2 tests run the Python package's tests and the user-program tests again with Debian 13's python3 and
# torch 2.6, in the root that scripts/debian13-root builds outside the checkout (scripts/test builds it first).
# Their interpreter is <build>/python3-debian13, a link to <build>/debian13/bin/python3.13 (as /usr/bin/python3
# is a link to python3.11), which enters the root through scripts/in-debian13; it serves as the program of
# `ringmaster run -- <build>/python3-debian13 train.py` too, and its name, beginning with "python", names a run
# after its script.
set(RM_DEBIAN13_BINDS ${CMAKE_BINARY_DIR})  # the build tree, wherever it lies
set(rm_debian13_interpreter ${CMAKE_BINARY_DIR}/debian13/bin/python3.13)
configure_file(${CMAKE_CURRENT_LIST_DIR}/python3-debian13.in ${rm_debian13_interpreter} @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                                WORLD_EXECUTE)
set(RM_DEBIAN13_PYTHON ${CMAKE_BINARY_DIR}/python3-debian13)
file(CREATE_LINK debian13/bin/python3.13 ${RM_DEBIAN13_PYTHON} SYMBOLIC)

# Every torch2 test needs the root: without it this one fails naming what to do, and the others do not run
# (ctest counts them failed).
add_test(NAME python.torch2_interpreter
         COMMAND ${RM_DEBIAN13_PYTHON} ${PROJECT_SOURCE_DIR}/python/tests/check_interpreter.py --torch 2)
set_tests_properties(python.torch2_interpreter PROPERTIES LABELS torch2 TIMEOUT 120 FIXTURES_SETUP debian13_python)
