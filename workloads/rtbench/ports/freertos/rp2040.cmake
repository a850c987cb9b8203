# FreeRTOS on the Raspberry Pi Pico (boards/rp2040/CMakeLists.txt with -DRTB_PICO_RTOS=
# freertos includes this file before project()): SMP on both cores through the kernel's
# RP2040 port (the default), or core 0 alone:
#
#   -DFREERTOS_KERNEL_PATH=/path/to/FreeRTOS-Kernel
#   -DRTB_PICO_CORES=1                  # the kernel's RP2040 port on core 0 alone
#   -DRTB_PICO_FREERTOS_PORT=cm0        # the generic GCC/ARM_CM0 port, core 0 alone
#                                       # (also FreeRTOS V10.2.1, which has no RP2040 port)
#
# Its FreeRTOSConfig.h: boards/rp2040/; its hooks: boards/rp2040.c.
rtb_path_from_env(FREERTOS_KERNEL_PATH REQUIRED FreeRTOS-Kernel)
set(RTB_PICO_FREERTOS_PORT rp2040 CACHE STRING "FreeRTOS's port: rp2040 (the kernel's) or cm0")
set(RTB_PICO_CORES 2 CACHE STRING "FreeRTOS's cores on its RP2040 port: 1 or 2")
# compiler: the C library's memcpy/memset (as the QEMU mps2 images link), not the SDK's
# wrappers into the boot ROM's (pico: the SDK's default on the RP2040)
set(RTB_PICO_MEM_OPS pico CACHE STRING "memcpy/memset: pico (the boot ROM's) or compiler")
# The generic port's kernel library's own compile options (the QEMU mps2 layer's sections
# options, for an image that runs the same instructions as its)
set(RTB_PICO_KERNEL_OPTIONS "" CACHE STRING "compile options of the cm0 kernel library")
if(NOT RTB_PICO_FREERTOS_PORT MATCHES "^(rp2040|cm0)$")
  message(FATAL_ERROR "RTB_PICO_FREERTOS_PORT=${RTB_PICO_FREERTOS_PORT}: expected rp2040 or cm0")
endif()
set(RTB_FREERTOS_PICO ${CMAKE_CURRENT_LIST_DIR})

# After the SDK's import, before project(): the kernel's own RP2040 port.
macro(rtb_rp2040_sdk_imported)
  if(RTB_PICO_FREERTOS_PORT STREQUAL "rp2040")
    include(${FREERTOS_KERNEL_PATH}/portable/ThirdParty/GCC/RP2040/FreeRTOS_Kernel_import.cmake)
  endif()
endmacro()

# After pico_sdk_init: rtbench-pico from BOARD_SOURCES, the core and this port compiled
# in, on the kernel (the RP2040 port's libraries, or the generic port as a library).
macro(rtb_rp2040_image)
  file(GLOB RTBENCH_CORE ${RTBENCH_DIR}/src/*.c)
  list(APPEND BOARD_SOURCES ${RTBENCH_CORE} ${RTL1_SOURCES}
       ${RTBENCH_DIR}/src/board/rtb_swi.c ${RTBENCH_DIR}/src/board/rtb_board_port.c
       ${RTB_FREERTOS_PICO}/rtb_port_freertos.c ${RTB_FREERTOS_PICO}/boards/rp2040.c)
  add_executable(rtbench-pico ${BOARD_SOURCES})
  target_include_directories(rtbench-pico PRIVATE ${RTBENCH_DIR}/include ${RTBENCH_DIR}/src
                                                  ${RTB_FREERTOS_PICO})
  target_include_directories(rtbench-pico PRIVATE ${RTB_FREERTOS_PICO}/boards/rp2040)
  if(RTB_PICO_FREERTOS_PORT STREQUAL "cm0")
    # The generic port as a library of the kernel's sources, core 0 alone.
    include(${RTB_FREERTOS_PICO}/freertos-kernel.cmake)
    rtb_freertos_kernel(freertos_cm0_pico PORT GCC/ARM_CM0
                        CONFIG_DIR ${RTB_FREERTOS_PICO}/boards/rp2040
                        OPTIONS ${RTB_PICO_KERNEL_OPTIONS}
                        DEFINITIONS RTB_PICO_FREERTOS_CM0=1 RTB_PICO_CORES=1)
    set(freertos_libs freertos_cm0_pico)
  else()
    target_compile_definitions(rtbench-pico PRIVATE RTB_PICO_CORES=${RTB_PICO_CORES})
    set(freertos_libs FreeRTOS-Kernel FreeRTOS-Kernel-Heap4)
  endif()
  target_link_libraries(rtbench-pico PRIVATE pico_stdlib hardware_pwm hardware_irq
                                             ${freertos_libs})
  if(RTB_PICO_MEM_OPS STREQUAL "compiler")
    pico_set_mem_ops_implementation(rtbench-pico compiler)
  endif()
endmacro()
