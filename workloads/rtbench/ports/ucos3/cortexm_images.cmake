# µC/OS-III's images on the Cortex-M board layers (boards/cmake/rtos_images.cmake includes
# this file and calls rtb_ucos3_cortexm_images per machine): with UCOS3_PATH,
# rtbench-ucos3-<m>.elf (the template's checks on) and rtbench-ucos3-lean-<m>.elf (checks
# off), on one core only (µC/OS-III has no SMP), with the small pools and stacks below
# 64 KiB of RAM (the description's ram_size; rtb_ucos3_sizes.h); the glue is
# boards/qemu-mps2.c here (the mps2 layer's hooks, which the STM32 and RP2350 layers
# implement too).
include(${CMAKE_CURRENT_LIST_DIR}/ucos3-paths.cmake)
set(RTB_UCOS3_BOARDS ${CMAKE_CURRENT_LIST_DIR}/boards)
if(UCOS3_PATH)
  include(${CMAKE_CURRENT_LIST_DIR}/ucos3-kernel.cmake) # at file scope: it enables ASM
  list(APPEND RTB_CORTEXM_PORTS ucos3)
endif()

function(rtb_ucos3_cortexm_images m out)
  set(${out} "" PARENT_SCOPE)
  if(A_CORES GREATER 1)
    return()
  endif()
  math(EXPR ram "${${A_DESCRIPTION}_ram_size}") # a description may write it in hex
  set(ucos3_small 0)
  if(ram LESS 65536)
    set(ucos3_small 1)
  endif()
  set(elves)
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
    add_executable(${elf} ${RTB_CORTEXM_MAIN} ${RTB_UCOS3_BOARDS}/qemu-mps2.c ${A_BOARD_C})
    target_link_libraries(${elf} PRIVATE rtbench_ucos3_${variant}_${m}
      -Wl,--whole-archive ${A_CHIP_LIB} -Wl,--no-whole-archive ucos3_${variant}_${m})
    list(APPEND elves ${elf})
  endforeach()
  set(${out} ${elves} PARENT_SCOPE)
endfunction()
