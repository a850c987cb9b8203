# µC/OS-III on the Raspberry Pi Pico, core 0 alone (µC/OS-III has no SMP; core 1 stays in
# the boot ROM): boards/rp2040/CMakeLists.txt with -DRTB_PICO_RTOS=ucos3 includes this
# file before project().
#
#   -DUCOS3_PATH=/path/to/ucos3 [-DRTB_PICO_UCOS3_LEAN=ON]   # checks and timestamps off
#
# The kernel library and rtbench on it as the Cortex-M layers build them (its ARMv6-M
# port, PendSV under the SDK's vector name); its hooks: boards/rp2040.c.
include(${CMAKE_CURRENT_LIST_DIR}/ucos3-paths.cmake)
if(NOT UCOS3_PATH)
  message(FATAL_ERROR "RTB_PICO_RTOS=ucos3: set UCOS3_PATH (uC-OS3, uC-CPU, uC-LIB)")
endif()
option(RTB_PICO_UCOS3_LEAN "µC/OS-III's lean configuration (checks and timestamps off)" OFF)
set(RTB_UCOS3_PICO ${CMAKE_CURRENT_LIST_DIR})

macro(rtb_rp2040_sdk_imported)
endmacro()

# After pico_sdk_init (ucos3-kernel.cmake enables ASM: after project()).
macro(rtb_rp2040_image)
  include(${RTB_UCOS3_PICO}/ucos3-kernel.cmake)
  set(lean 0)
  if(RTB_PICO_UCOS3_LEAN)
    set(lean 1)
  endif()
  rtb_ucos3_kernel(ucos3_pico LEAN ${lean} PENDSV isr_pendsv OPTIONS -mcpu=cortex-m0plus)
  rtb_ucos3_rtbench(rtbench_ucos3_pico KERNEL ucos3_pico DEFINITIONS ${RTB_SIZES})
  list(APPEND BOARD_SOURCES ${RTB_UCOS3_PICO}/boards/rp2040.c)
  add_executable(rtbench-pico ${BOARD_SOURCES})
  target_link_libraries(rtbench-pico PRIVATE rtbench_ucos3_pico pico_stdlib hardware_pwm
                                             hardware_irq)
endmacro()
