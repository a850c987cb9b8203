# µC/OS-III as the user brings it (UCOS3_PATH, UCCPU_PATH, UCLIB_PATH: the uC-OS3, uC-CPU
# and uC-LIB repositories), built as a static library with the project's configuration
# headers (ports/ucos3/config), and the rtbench core + µC/OS-III port on top of it.
#
#   include(<rtbench>/ports/ucos3/ucos3-kernel.cmake)
#   rtb_ucos3_kernel(kernel_m3 LEAN 0 OPTIONS -mcpu=...)
#   rtb_ucos3_rtbench(rtbench_m3 KERNEL kernel_m3)
#
# The ARMv7-M ports (Cortex-M3/M4/M7) or, when OPTIONS name a Cortex-M0/M0+, the ARMv6-M
# ones: the toolchain folder is GNU/, with the C parts one level up. The kernel's sources
# build with -Wall only (not ours to fix). SMALL 1: the 16-20 KiB boards' pools and stacks
# (rtb_ucos3_sizes.h, os_cfg_app.h). PENDSV: the vector table's name for PendSV_Handler.
set(RTBENCH_DIR ${CMAKE_CURRENT_LIST_DIR}/../..)
include(${RTBENCH_DIR}/../common/rtl1/rtl1.cmake)
include(${RTBENCH_DIR}/src/board/rtb_board_core.cmake)
enable_language(ASM) # os_cpu_a.S, cpu_a.s

function(rtb_ucos3_kernel name)
  cmake_parse_arguments(K "" "LEAN;SMALL;PENDSV" "OPTIONS;DEFINITIONS" ${ARGN})
  set(os ${UCOS3_PATH})
  set(cpu ${UCCPU_PATH})
  set(lib ${UCLIB_PATH})
  set(arch ARMv7-M)
  set(os_asm GNU/os_cpu_a.S)
  if(K_OPTIONS MATCHES "cortex-m0")
    set(arch ARMv6-M)
    set(os_asm GNU/os_cpu_a.s)
    # A .s is not preprocessed: this one must be, for PendSV's vector-table name below.
    set_source_files_properties(${os}/Ports/ARM-Cortex-M/${arch}/${os_asm}
                                PROPERTIES COMPILE_OPTIONS "-x;assembler-with-cpp")
  endif()
  if(NOT K_SMALL)
    set(K_SMALL 0)
  endif()
  if(NOT K_PENDSV) # the vector table's name for PendSV (the pico-sdk's: isr_pendsv)
    set(K_PENDSV PendSV_Handler)
  endif()
  set(osport ${os}/Ports/ARM-Cortex-M/${arch})
  set(cpuport ${cpu}/ARM-Cortex-M/${arch})
  file(GLOB os_sources ${os}/Source/os_*.c)
  list(FILTER os_sources EXCLUDE REGEX "os_dbg\\.c$")
  add_library(${name} STATIC ${os_sources} ${osport}/os_cpu_c.c ${osport}/${os_asm}
              ${cpu}/cpu_core.c ${cpuport}/cpu_c.c ${cpuport}/GNU/cpu_a.s ${lib}/lib_mem.c)
  target_include_directories(${name} PUBLIC ${RTBENCH_DIR}/ports/ucos3/config
    ${RTBENCH_DIR}/ports/ucos3 ${os}/Source ${osport}/GNU ${cpu} ${cpuport}/GNU ${lib})
  target_compile_options(${name} PRIVATE -Wall -Wno-error -std=gnu11)
  target_compile_options(${name} PUBLIC ${K_OPTIONS})
  # PendSV under the vector table's name; SysTick goes through boards/<layer>.c.
  target_compile_definitions(${name} PUBLIC ${K_DEFINITIONS} RTB_UCOS3_LEAN=${K_LEAN}
                             RTB_UCOS3_SMALL=${K_SMALL}
                             OS_CPU_PendSVHandler=${K_PENDSV})
endfunction()

# The core + ucos3 port library on the kernel library (src/board/rtb_board_core.cmake).
function(rtb_ucos3_rtbench name)
  rtb_board_core(${name} ucos3 ${ARGN})
endfunction()
