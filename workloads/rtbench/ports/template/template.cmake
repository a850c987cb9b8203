# CMake fragment of a port, template: the suite's core, the shared @rtl1 writer and
# this port, as one static library. Copy it next to rtb_port_<name>.c and include() it
# from the board's CMakeLists.txt (after project() and the toolchain):
#
#   include(<rtbench>/ports/<name>/<name>.cmake)
#   rtb_template_rtbench(rtbench_core OPTIONS -mcpu=... DEFINITIONS RTB_SAMPLE_POOL=16384)
#   target_link_libraries(<firmware> PRIVATE rtbench_core <your RTOS library>)
#
# ports/freertos/freertos-kernel.cmake is the worked example (the kernel as a library,
# built with the board's configuration header). A port on one of rtbench's board layers
# (boards/*: the board interface, include/rtb_board.h) builds with
# src/board/rtb_board_core.cmake instead: rtb_board_core(<name> <rtos> KERNEL <lib>)
# takes the core, the software-interrupt pool and the board half of the layer, and the
# port's ports/<rtos>/rtb_port_<rtos>.c with its rtb_isr.h (template: rtb_isr.h here).
set(RTBENCH_DIR ${CMAKE_CURRENT_LIST_DIR}/../..)
include(${RTBENCH_DIR}/../common/rtl1/rtl1.cmake)

function(rtb_template_rtbench name)
  cmake_parse_arguments(R "" "" "OPTIONS;DEFINITIONS" ${ARGN})
  file(GLOB core ${RTBENCH_DIR}/src/*.c)
  add_library(${name} STATIC ${core} ${RTL1_SOURCES}
                             ${RTBENCH_DIR}/ports/template/rtb_port_template.c)
  target_include_directories(${name} PUBLIC ${RTBENCH_DIR}/include ${RTBENCH_DIR}/src)
  target_compile_options(${name} PRIVATE -Wall -Wextra -Werror PUBLIC ${R_OPTIONS})
  target_compile_definitions(${name} PUBLIC ${R_DEFINITIONS})
endfunction()
