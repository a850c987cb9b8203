# The C code the Linux workloads share (the protocol writer, option parsing, stop
# signals, real-time setup), as the static library rtlab_workload_common:
#   include(<workloads>/linux/common/common.cmake)   # after rtlab-c.cmake
#   target_link_libraries(<program> PRIVATE rtlab_workload_common)
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/../../common/rtl1/rtl1.cmake)
add_library(rtlab_workload_common STATIC
  ${CMAKE_CURRENT_LIST_DIR}/proto.c ${CMAKE_CURRENT_LIST_DIR}/workload.c ${RTL1_SOURCES})
target_include_directories(rtlab_workload_common PUBLIC ${CMAKE_CURRENT_LIST_DIR}
                                                        ${RTL1_INCLUDE_DIR})
target_compile_options(rtlab_workload_common PRIVATE ${RTLAB_C_WARNINGS} -O2)
target_compile_definitions(rtlab_workload_common PUBLIC _GNU_SOURCE)
