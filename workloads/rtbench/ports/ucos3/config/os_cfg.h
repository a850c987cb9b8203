/*
 * µC/OS-III kernel configuration for rtbench (the project's own, written for this suite:
 * no kernel code). Two documented configurations:
 *
 *  - default: µC/OS-III's template (Cfg/Template/os_cfg.h of v3.08.02) with argument,
 *    object-type, object-created, called-from-ISR and invalid-call checks on, plus
 *    timestamps (OS_CFG_TS_EN, on CMSDK TIMER0 through CPU_TS_TmrRd) and task profiling;
 *  - lean (-DRTB_UCOS3_LEAN=1): those checks, timestamps and profiling off.
 *
 * Both: 20 priorities (levels 1..16 at 17 - level, idle at 19), no statistics task and
 * no timer task (no scenario uses them; they would run between samples), round-robin
 * compiled in (rtb_yield). Lines the Python side reads are "#define NAME value": keep
 * that shape (src/rtlab/lab/rtos/ucos3/describe.py records them with each run).
 */
#ifndef OS_CFG_H
#define OS_CFG_H

#define OS_CFG_APP_HOOKS_EN 1u
#define OS_CFG_ARG_CHK_EN 1u
#define OS_CFG_CALLED_FROM_ISR_CHK_EN 1u
#define OS_CFG_DBG_EN 0u
#define OS_CFG_TICK_EN 1u
#define OS_CFG_DYN_TICK_EN 0u
#define OS_CFG_INVALID_OS_CALLS_CHK_EN 1u
#define OS_CFG_OBJ_TYPE_CHK_EN 1u
#define OS_CFG_OBJ_CREATED_CHK_EN 1u
#define OS_CFG_TS_EN 1u
#define OS_CFG_PRIO_MAX 20u
#define OS_CFG_SCHED_LOCK_TIME_MEAS_EN 0u
#define OS_CFG_SCHED_ROUND_ROBIN_EN 1u
#define OS_CFG_STK_SIZE_MIN 64u

#define OS_CFG_FLAG_EN 1u
#define OS_CFG_FLAG_DEL_EN 1u
#define OS_CFG_FLAG_MODE_CLR_EN 1u
#define OS_CFG_FLAG_PEND_ABORT_EN 1u

#define OS_CFG_MEM_EN 1u

#define OS_CFG_MUTEX_EN 1u
#define OS_CFG_MUTEX_DEL_EN 1u
#define OS_CFG_MUTEX_PEND_ABORT_EN 1u

#define OS_CFG_Q_EN 1u
#define OS_CFG_Q_DEL_EN 1u
#define OS_CFG_Q_FLUSH_EN 1u
#define OS_CFG_Q_PEND_ABORT_EN 1u

#define OS_CFG_SEM_EN 1u
#define OS_CFG_SEM_DEL_EN 1u
#define OS_CFG_SEM_PEND_ABORT_EN 1u
#define OS_CFG_SEM_SET_EN 1u

#define OS_CFG_STAT_TASK_EN 0u
#define OS_CFG_STAT_TASK_STK_CHK_EN 0u

#define OS_CFG_TASK_CHANGE_PRIO_EN 1u
#define OS_CFG_TASK_DEL_EN 1u
#define OS_CFG_TASK_IDLE_EN 1u
#define OS_CFG_TASK_PROFILE_EN 1u
#define OS_CFG_TASK_Q_EN 1u
#define OS_CFG_TASK_Q_PEND_ABORT_EN 1u
#define OS_CFG_TASK_REG_TBL_SIZE 1u
#define OS_CFG_TASK_STK_REDZONE_EN 0u
#define OS_CFG_TASK_STK_REDZONE_DEPTH 8u
#define OS_CFG_TASK_SEM_PEND_ABORT_EN 1u
#define OS_CFG_TASK_SUSPEND_EN 1u

#define OS_CFG_TLS_TBL_SIZE 0u

#define OS_CFG_TIME_DLY_HMSM_EN 1u
#define OS_CFG_TIME_DLY_RESUME_EN 1u

#define OS_CFG_TMR_EN 0u
#define OS_CFG_TMR_DEL_EN 0u

#define OS_CFG_TRACE_EN 0u
#define OS_CFG_TRACE_API_ENTER_EN 0u
#define OS_CFG_TRACE_API_EXIT_EN 0u

/* lean: what the kernel checks on every call, off (the figures' largest difference). */
#if defined(RTB_UCOS3_LEAN) && RTB_UCOS3_LEAN
#undef OS_CFG_ARG_CHK_EN
#define OS_CFG_ARG_CHK_EN 0u
#undef OS_CFG_CALLED_FROM_ISR_CHK_EN
#define OS_CFG_CALLED_FROM_ISR_CHK_EN 0u
#undef OS_CFG_INVALID_OS_CALLS_CHK_EN
#define OS_CFG_INVALID_OS_CALLS_CHK_EN 0u
#undef OS_CFG_OBJ_TYPE_CHK_EN
#define OS_CFG_OBJ_TYPE_CHK_EN 0u
#undef OS_CFG_OBJ_CREATED_CHK_EN
#define OS_CFG_OBJ_CREATED_CHK_EN 0u
#undef OS_CFG_TS_EN
#define OS_CFG_TS_EN 0u
#undef OS_CFG_TASK_PROFILE_EN
#define OS_CFG_TASK_PROFILE_EN 0u
#endif

#endif
