# The shared @rtl1 writer (rtl1.c), for every CMake build of a C workload:
#   include(<workloads>/common/rtl1/rtl1.cmake)
#   target_sources(<t> PRIVATE ${RTL1_SOURCES})
#   target_include_directories(<t> PRIVATE ${RTL1_INCLUDE_DIR})
set(RTL1_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RTL1_SOURCES ${CMAKE_CURRENT_LIST_DIR}/rtl1.c)
