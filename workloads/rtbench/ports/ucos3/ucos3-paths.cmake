# Where µC/OS-III is, from -D or the environment: UCOS3_PATH (one folder holding uC-OS3,
# uC-CPU and uC-LIB, or the uC-OS3 checkout with UCCPU_PATH and UCLIB_PATH). Unset:
# nothing is built on it.
include(${CMAKE_CURRENT_LIST_DIR}/../../boards/cmake/path_from_env.cmake)
rtb_path_from_env(UCOS3_PATH)
if(UCOS3_PATH AND EXISTS ${UCOS3_PATH}/uC-OS3/Source/os_core.c) # one folder holding all three
  set(UCCPU_PATH ${UCOS3_PATH}/uC-CPU)
  set(UCLIB_PATH ${UCOS3_PATH}/uC-LIB)
  set(UCOS3_PATH ${UCOS3_PATH}/uC-OS3)
endif()
if(UCOS3_PATH)
  rtb_path_from_env(UCCPU_PATH REQUIRED "uC-CPU")
  rtb_path_from_env(UCLIB_PATH REQUIRED "uC-LIB")
endif()
