# The RTOS images of a board layer built on the mps2 layer's Cortex-M glue (mps2 itself,
# the STM32 and RP2350 layers): rtbench-freertos-<m>.elf with FREERTOS_KERNEL_PATH, and
# rtbench-ucos3-<m>.elf / rtbench-ucos3-lean-<m>.elf with UCOS3_PATH (the small pools and
# stacks below 64 KiB of RAM: ports/ucos3/rtb_ucos3_sizes.h). Each links the layer's chip
# library whole (its vectors and hooks must not be dropped).
#
#   rtb_cortexm_rtos_images(<m> CHIP_LIB <lib> BOARD_C <hooks.c> FREERTOS_PORT <port>
#                           RAM <bytes> CPU <flags...> LINK <options...>
#                           DEFINITIONS <board macros...> SMALL <rtbench sizes...>
#                           [BIN] [NO_FREERTOS] [NO_UCOS3])
#
# BIN: each ELF also as a .bin (an ST-LINK's mass-storage drive takes it). NO_FREERTOS,
# NO_UCOS3: not that RTOS on this machine (the kernel lacks its port, or its cores).
set(RTB_IMAGES_RTBENCH_DIR ${CMAKE_CURRENT_LIST_DIR}/../..)
# At file scope: the µC/OS-III rules enable ASM, which a function's scope would lose.
if(FREERTOS_KERNEL_PATH)
  include(${RTB_IMAGES_RTBENCH_DIR}/ports/freertos/freertos-kernel.cmake)
endif()
if(UCOS3_PATH)
  include(${RTB_IMAGES_RTBENCH_DIR}/ports/ucos3/ucos3-kernel.cmake)
endif()

function(rtb_cortexm_rtos_images m)
  cmake_parse_arguments(A "BIN;NO_FREERTOS;NO_UCOS3" "CHIP_LIB;BOARD_C;FREERTOS_PORT;RAM"
                        "CPU;LINK;DEFINITIONS;SMALL" ${ARGN})
  set(glue ${RTB_IMAGES_RTBENCH_DIR}/boards/qemu-mps2)
  set(main ${RTB_IMAGES_RTBENCH_DIR}/src/board/rtb_main.c) # the shared start-up
  set(board_c ${A_BOARD_C} ${glue}/board_lines.c) # the layer's hooks + mps2's lines
  set(elves)
  if(FREERTOS_KERNEL_PATH AND NOT A_NO_FREERTOS)
    rtb_freertos_kernel(freertos_${m} PORT ${A_FREERTOS_PORT} CONFIG_DIR ${glue}
                        OPTIONS ${A_CPU} DEFINITIONS ${A_DEFINITIONS})
    rtb_freertos_rtbench(rtbench_core_${m} KERNEL freertos_${m} DEFINITIONS ${A_SMALL})
    add_executable(rtbench-freertos-${m} ${main} ${glue}/board_freertos.c ${board_c})
    target_link_libraries(rtbench-freertos-${m} PRIVATE rtbench_core_${m}
      -Wl,--whole-archive ${A_CHIP_LIB} -Wl,--no-whole-archive freertos_${m})
    list(APPEND elves rtbench-freertos-${m})
  endif()
  if(UCOS3_PATH AND NOT A_NO_UCOS3)
    math(EXPR ram "${A_RAM}") # a description may write it in hex
    set(ucos3_small 0)
    if(ram LESS 65536)
      set(ucos3_small 1)
    endif()
    foreach(variant default lean)
      set(lean 0)
      set(suffix "")
      if(variant STREQUAL "lean")
        set(lean 1)
        set(suffix "-lean")
      endif()
      rtb_ucos3_kernel(ucos3_${variant}_${m} LEAN ${lean} SMALL ${ucos3_small}
                       OPTIONS ${A_CPU} DEFINITIONS ${A_DEFINITIONS})
      rtb_ucos3_rtbench(rtbench_ucos3_${variant}_${m} KERNEL ucos3_${variant}_${m}
                        DEFINITIONS ${A_SMALL})
      set(elf rtbench-ucos3${suffix}-${m})
      add_executable(${elf} ${main} ${glue}/board_ucos3.c ${board_c})
      target_link_libraries(${elf} PRIVATE rtbench_ucos3_${variant}_${m}
        -Wl,--whole-archive ${A_CHIP_LIB} -Wl,--no-whole-archive ucos3_${variant}_${m})
      list(APPEND elves ${elf})
    endforeach()
  endif()
  foreach(elf IN LISTS elves)
    target_compile_options(${elf} PRIVATE ${RTLAB_C_WARNINGS})
    target_link_options(${elf} PRIVATE ${A_LINK})
    if(A_BIN)
      add_custom_command(TARGET ${elf} POST_BUILD
        COMMAND ${CMAKE_OBJCOPY} -O binary $<TARGET_FILE:${elf}> ${elf}.bin)
    endif()
  endforeach()
endfunction()
