# FreeRTOS's images on the Cortex-M board layers (boards/cmake/rtos_images.cmake includes
# this file and calls rtb_freertos_cortexm_images per machine): with FREERTOS_KERNEL_PATH,
# rtbench-freertos-<m>.elf for each machine with an overlay here (machines/<machine>.toml:
# FreeRTOS runs there), the kernel's port the overlay's freertos_port,
# its FreeRTOSConfig.h boards/qemu-mps2/ and its glue boards/qemu-mps2.c here (the mps2
# layer's hooks, which the STM32 and RP2350 layers implement too). A machine with more
# than one core needs the kernel's Armv8-M SMP (after V11.3.0): an older kernel skips it.
include(${CMAKE_CURRENT_LIST_DIR}/../../boards/cmake/path_from_env.cmake)
rtb_path_from_env(FREERTOS_KERNEL_PATH)
set(RTB_FREERTOS_BOARDS ${CMAKE_CURRENT_LIST_DIR}/boards)
if(FREERTOS_KERNEL_PATH)
  include(${CMAKE_CURRENT_LIST_DIR}/freertos-kernel.cmake)
  list(APPEND RTB_CORTEXM_PORTS freertos)
endif()

set(RTB_FREERTOS_MACHINES ${CMAKE_CURRENT_LIST_DIR}/machines)

function(rtb_freertos_cortexm_images m out)
  set(${out} "" PARENT_SCOPE)
  set(overlay ${RTB_FREERTOS_MACHINES}/${${A_DESCRIPTION}_machine}.toml)
  if(NOT EXISTS ${overlay})
    return()
  endif()
  rtb_board_description(${overlay} FREERTOS_ON OVERLAY)
  set(kernel_port ${FREERTOS_ON_freertos_port})
  if(A_CORES GREATER 1)
    set(smp_h ${FREERTOS_KERNEL_PATH}/portable/${kernel_port}/portmacrocommon.h)
    set(smp_lines "")
    if(EXISTS ${smp_h})
      file(STRINGS ${smp_h} smp_lines REGEX "configWAKE_SECONDARY_CORES")
    endif()
    if(NOT smp_lines)
      message(STATUS "rtbench-freertos-${m}: skipped, FreeRTOS-Kernel at "
                     "${FREERTOS_KERNEL_PATH} has no Armv8-M SMP (after V11.3.0)")
      return()
    endif()
  endif()
  set(glue ${RTB_FREERTOS_BOARDS}/qemu-mps2)
  rtb_freertos_kernel(freertos_${m} PORT ${kernel_port} CONFIG_DIR ${glue}
                      OPTIONS ${A_CPU} DEFINITIONS ${A_DEFINITIONS})
  rtb_freertos_rtbench(rtbench_core_${m} KERNEL freertos_${m} DEFINITIONS ${A_SMALL})
  add_executable(rtbench-freertos-${m} ${RTB_CORTEXM_MAIN} ${glue}.c ${A_BOARD_C})
  target_link_libraries(rtbench-freertos-${m} PRIVATE rtbench_core_${m}
    -Wl,--whole-archive ${A_CHIP_LIB} -Wl,--no-whole-archive freertos_${m})
  set(${out} rtbench-freertos-${m} PARENT_SCOPE)
endfunction()
