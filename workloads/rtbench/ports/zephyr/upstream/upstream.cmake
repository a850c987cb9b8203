# rtbench on Zephyr's own MCU boards (included by ../CMakeLists.txt): the rtlab board name
# an image prints, the spare NVIC lines for software interrupts, the sizes for the RAM
# (a Nucleo's from the STM32 layer's description, boards/stm32/machines), and the options
# built into the image: rtb_zephyr_args.h in the build's rtb_args/ (rtlab writes it for
# each option set; absent, the image runs every scenario with the defaults).
if(BOARD STREQUAL "rpi_pico")
  set(rtb_name pico)
  set(swi_irq 7) # PIO0_IRQ_0..PIO1_IRQ_1: no driver of this build (Zephyr has 26 lines)
  set(defs RTB_ZEPHYR_HEAP=98304 RTB_SAMPLE_POOL=16384 RTB_MAX_WORKERS=16) # boards/rp2040's
else()
  string(REPLACE "_" "-" rtb_name ${BOARD}) # nucleo_f411re -> nucleo-f411re
  rtb_board_description(${RTBENCH_DIR}/boards/stm32/machines/${rtb_name}.toml DESC)
  set(swi_irq ${DESC_swi_first_irq})
  set(defs RTB_ZEPHYR_HEAP=${DESC_heap_size})
  string(REGEX REPLACE "^P[A-K]([0-9]+)$" "\\1" marker_pin ${DESC_marker}) # PA5 -> 5
  list(APPEND defs RTB_UPSTREAM_MARKER_PIN=${marker_pin}) # checked against led0
  foreach(pair sample_pool:RTB_SAMPLE_POOL max_workers:RTB_MAX_WORKERS max_line:RTL1_MAX_LINE)
    string(REPLACE ":" ";" pair ${pair})
    list(GET pair 0 key)
    list(GET pair 1 macro)
    if(DESC_${key})
      list(APPEND defs ${macro}=${DESC_${key}})
    endif()
  endforeach()
  if(DESC_thread_stack_words) # the 20 KiB boards: the FreeRTOS build's stack + Zephyr's frame
    math(EXPR stack "${DESC_thread_stack_words} * 4 + 256")
    # Zephyr's main, interrupt and idle stacks are static: 1 KiB less heap than FreeRTOS's
    math(EXPR heap "${DESC_heap_size} - 1024")
    list(APPEND defs RTB_ZEPHYR_THREAD_STACK=${stack} RTB_ZEPHYR_HEAP=${heap})
    list(REMOVE_ITEM defs RTB_ZEPHYR_HEAP=${DESC_heap_size})
  endif()
endif()
set(DESC_DEFINITIONS ${defs} "RTB_UPSTREAM_NAME=\"${rtb_name}\"" RTB_UPSTREAM_SWI_IRQ=${swi_irq})
set(board_includes ${CMAKE_BINARY_DIR}/rtb_args)
if(NOT EXISTS ${CMAKE_BINARY_DIR}/rtb_args/rtb_zephyr_args.h)
  file(WRITE ${CMAKE_BINARY_DIR}/rtb_args/rtb_zephyr_args.h "#define RTB_ZEPHYR_ARGS \"\"\n")
endif()
# The HAL modules' headers (soc.h pulls them into every source) are not ours: system
# headers for the app, so -Wextra -Werror judges our code only.
get_target_property(hal_includes zephyr_interface INTERFACE_INCLUDE_DIRECTORIES)
set(hal_dirs)
foreach(dir IN LISTS hal_includes)
  foreach(mod IN ITEMS ${ZEPHYR_HAL_STM32_MODULE_DIR} ${ZEPHYR_HAL_RPI_PICO_MODULE_DIR})
    string(FIND "${dir}" "${mod}/" at)
    if(at EQUAL 0)
      list(APPEND hal_dirs ${dir})
    endif()
  endforeach()
endforeach()
target_include_directories(app SYSTEM PRIVATE ${hal_dirs})
