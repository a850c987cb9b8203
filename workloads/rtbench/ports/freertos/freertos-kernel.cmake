# The FreeRTOS kernel the user brings (FREERTOS_KERNEL_PATH), as a static library built
# with the board's FreeRTOSConfig.h, and the rtbench core + FreeRTOS port on top of it.
#
#   include(<rtbench>/ports/freertos/freertos-kernel.cmake)
#   rtb_freertos_kernel(kernel_m3 PORT GCC/ARM_CM3 CONFIG_DIR <dir> OPTIONS -mcpu=...)
#   rtb_freertos_rtbench(rtbench_m3 KERNEL kernel_m3 OPTIONS -mcpu=...)
#
# The kernel's own sources build with -Wall only (they are not ours to fix); the suite
# and the port build with -Wall -Wextra -Werror.
set(RTBENCH_DIR ${CMAKE_CURRENT_LIST_DIR}/../..)
include(${RTBENCH_DIR}/../common/rtl1/rtl1.cmake)
include(${RTBENCH_DIR}/src/board/rtb_board_core.cmake)

function(rtb_freertos_kernel name)
  cmake_parse_arguments(K "" "PORT;CONFIG_DIR;HEAP" "OPTIONS;DEFINITIONS" ${ARGN})
  if(NOT K_HEAP)
    set(K_HEAP heap_4)
  endif()
  set(k ${FREERTOS_KERNEL_PATH})
  set(port_c ${k}/portable/${K_PORT}/port.c)
  if(EXISTS ${k}/portable/${K_PORT}/portasm.c) # ARM_CM0 (V11): the assembly half
    list(APPEND port_c ${k}/portable/${K_PORT}/portasm.c)
  endif()
  add_library(${name} STATIC
    ${k}/tasks.c ${k}/queue.c ${k}/list.c ${k}/timers.c ${k}/event_groups.c
    ${k}/portable/MemMang/${K_HEAP}.c ${port_c})
  # CONFIG_DIR's FreeRTOSConfig.h includes FreeRTOSConfig_rtbench.h (this directory).
  target_include_directories(${name} PUBLIC ${k}/include ${k}/portable/${K_PORT}
                                            ${K_CONFIG_DIR} ${RTBENCH_DIR}/ports/freertos)
  target_compile_options(${name} PRIVATE -Wall -Wno-error)
  target_compile_options(${name} PUBLIC ${K_OPTIONS})
  target_compile_definitions(${name} PUBLIC ${K_DEFINITIONS})
endfunction()

# The core + freertos port library on the kernel library (src/board/rtb_board_core.cmake).
function(rtb_freertos_rtbench name)
  rtb_board_core(${name} freertos ${ARGN})
endfunction()
