# Warnings for project code only (generated and third-party headers are left alone).
add_library(rm_warnings INTERFACE)
target_compile_options(rm_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>)
# GCC warns when a type outside the main file holds a type of an anonymous namespace: meant for headers, it
# fires in a unity build for every source after the first of its unit (a test fixture, a private service).
if(CMAKE_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(rm_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
endif()
