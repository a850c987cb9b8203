/* Internals shared by the POSIX port's files. */
#ifndef RTB_POSIX_H
#define RTB_POSIX_H

#include <stddef.h>

/* Kernel objects get whole cache lines: two cores' private objects must not share one,
 * or the scalability patterns would measure false sharing instead of the kernel. */
void *rtb_posix_obj_alloc(size_t size);
void rtb_posix_obj_free(void *p);

#endif
