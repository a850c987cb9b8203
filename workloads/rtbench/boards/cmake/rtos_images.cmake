# The RTOS images of a board layer built on the mps2 layer's Cortex-M glue (mps2 itself,
# the STM32 and RP2350 layers). Nothing here names an RTOS: every port folder with a
# cortexm_images.cmake (ports/*/cortexm_images.cmake, in name order) adds its images
# for each machine. Each image links the layer's chip library whole (its vectors and
# hooks must not be dropped), after the shared start-up, the port's glue for this layer
# and the layer's hooks.
#
#   rtb_cortexm_rtos_images(<m> CHIP_LIB <lib> BOARD_C <hooks.c> CORES <n>
#                           DESCRIPTION <prefix> CPU <flags...> LINK <options...>
#                           DEFINITIONS <board macros...> SMALL <rtbench sizes...> [BIN])
#
# CORES: the cores the images run on (a port without SMP builds none for 2).
# DESCRIPTION: the prefix of the machine description's variables (rtb_load_machine's
# DESC), where a port reads its own keys (ram_size, freertos_port, ...). BIN: each ELF
# also as a .bin (an # ST-LINK's mass-storage drive takes it).
#
# A port's cortexm_images.cmake is included here, at file scope (its kernel rules may
# enable a language, which a function's scope would lose). When its kernel is brought it
# appends its name <p> to RTB_CORTEXM_PORTS and defines rtb_<p>_cortexm_images(<m> <out>):
# it reads the arguments above as A_* (A_BOARD_C with the mps2 layer's lines already
# appended), RTB_CORTEXM_MAIN (the start-up), adds its executables and sets <out> to
# their names; the flags, link options and .bin are added here.
if(CMAKE_VERSION VERSION_LESS 3.18)
  message(FATAL_ERROR "the board layers need CMake 3.18 (cmake_language), not ${CMAKE_VERSION}")
endif()
set(RTB_IMAGES_RTBENCH_DIR ${CMAKE_CURRENT_LIST_DIR}/../..)
set(RTB_CORTEXM_MAIN ${RTB_IMAGES_RTBENCH_DIR}/src/board/rtb_main.c) # the shared start-up
set(RTB_CORTEXM_PORTS)
file(GLOB rtb_cortexm_port_rules ${RTB_IMAGES_RTBENCH_DIR}/ports/*/cortexm_images.cmake)
foreach(rules IN LISTS rtb_cortexm_port_rules)
  include(${rules})
endforeach()

function(rtb_cortexm_rtos_images m)
  cmake_parse_arguments(A "BIN" "CHIP_LIB;BOARD_C;CORES;DESCRIPTION"
                        "CPU;LINK;DEFINITIONS;SMALL" ${ARGN})
  list(APPEND A_BOARD_C ${RTB_IMAGES_RTBENCH_DIR}/boards/qemu-mps2/board_lines.c)
  set(elves)
  foreach(port IN LISTS RTB_CORTEXM_PORTS)
    set(port_elves)
    cmake_language(CALL rtb_${port}_cortexm_images ${m} port_elves)
    list(APPEND elves ${port_elves})
  endforeach()
  foreach(elf IN LISTS elves)
    target_compile_options(${elf} PRIVATE ${RTLAB_C_WARNINGS})
    target_link_options(${elf} PRIVATE ${A_LINK})
    if(A_BIN)
      add_custom_command(TARGET ${elf} POST_BUILD
        COMMAND ${CMAKE_OBJCOPY} -O binary $<TARGET_FILE:${elf}> ${elf}.bin)
    endif()
  endforeach()
endfunction()
