# The C conventions of rtlab's own CMake projects (the Linux workloads, rtbench and its
# QEMU board): C11 without compiler extensions, a Release build unless one is asked
# for, and RTLAB_C_WARNINGS (-Wall -Wextra -Werror) for the project's own sources.
# include() it right after project().
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
set(RTLAB_C_WARNINGS -Wall -Wextra -Werror)
