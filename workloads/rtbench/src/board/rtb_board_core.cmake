# The rtbench library of an RTOS port on a board layer: the core (src/*.c, and src/board/'s
# software-interrupt pool and board half), the @rtl1 writer and the port
# (ports/<rtos>/rtb_port_<rtos>.c, with its rtb_isr.h), -Wall -Wextra -Werror, on the
# kernel's library. The ports' cmake files (freertos-kernel.cmake, ucos3-kernel.cmake)
# name their rtb_<rtos>_rtbench after it.
#
#   rtb_board_core(<name> <rtos> KERNEL <kernel lib> [DEFINITIONS <rtbench sizes...>])
set(RTB_BOARD_CORE_DIR ${CMAKE_CURRENT_LIST_DIR}/../..)
include(${RTB_BOARD_CORE_DIR}/../common/rtl1/rtl1.cmake)

function(rtb_board_core name rtos)
  cmake_parse_arguments(R "" "KERNEL" "OPTIONS;DEFINITIONS" ${ARGN})
  set(dir ${RTB_BOARD_CORE_DIR})
  file(GLOB core ${dir}/src/*.c)
  add_library(${name} STATIC ${core} ${RTL1_SOURCES} ${dir}/src/board/rtb_swi.c
                      ${dir}/src/board/rtb_board_port.c ${dir}/ports/${rtos}/rtb_port_${rtos}.c)
  target_include_directories(${name} PUBLIC ${dir}/include ${dir}/src ${dir}/ports/${rtos})
  target_compile_options(${name} PRIVATE -Wall -Wextra -Werror)
  target_compile_definitions(${name} PUBLIC ${R_DEFINITIONS})
  target_link_libraries(${name} PUBLIC ${R_KERNEL})
endfunction()
