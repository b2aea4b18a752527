# Finds CUDA + NCCL for the NCCL backend. RINGMASTER_WITH_NCCL:
#   OFF  never build it;  ON  fail when not found;  AUTO  build it when found.
# Sets RINGMASTER_HAVE_NCCL and, when true, the imported target Ringmaster::nccl.
set(RINGMASTER_HAVE_NCCL OFF)
if(NOT RINGMASTER_WITH_NCCL STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  find_path(NCCL_INCLUDE_DIR nccl.h
            HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME
            PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY nccl
               HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_HOME
               PATH_SUFFIXES lib lib64)
  if(CUDAToolkit_FOUND AND NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(RINGMASTER_HAVE_NCCL ON)
    add_library(Ringmaster::nccl INTERFACE IMPORTED)
    target_include_directories(Ringmaster::nccl INTERFACE ${NCCL_INCLUDE_DIR})
    target_link_libraries(Ringmaster::nccl INTERFACE ${NCCL_LIBRARY} CUDA::cudart)
    message(STATUS "NCCL backend: ON (${NCCL_LIBRARY}, CUDA ${CUDAToolkit_VERSION})")
  elseif(RINGMASTER_WITH_NCCL STREQUAL "ON")
    message(FATAL_ERROR "RINGMASTER_WITH_NCCL=ON but CUDA (${CUDAToolkit_FOUND}) or NCCL "
                        "(${NCCL_INCLUDE_DIR}, ${NCCL_LIBRARY}) was not found; "
                        "set CUDAToolkit_ROOT or NCCL_HOME, or use -DRINGMASTER_WITH_NCCL=OFF")
  else()
    message(STATUS "NCCL backend: OFF (CUDA or NCCL not found)")
  endif()
else()
  message(STATUS "NCCL backend: OFF (RINGMASTER_WITH_NCCL=OFF)")
endif()
