# Warnings for project code only (generated and third-party headers are left alone).
add_library(rm_warnings INTERFACE)
target_compile_options(rm_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>)
