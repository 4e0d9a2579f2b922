/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Just enough of the kernel's API for kmod/ring.h, kmod/format.c and
 * kmod/buffer.c to build in user space (tests/unit/, forced in with
 * -include). Barriers are the C11 ones; the spinlock is a real mutex.
 * Add here only what a tested kernel source uses.
 */
#ifndef _DRACK_KCOMPAT_H
#define _DRACK_KCOMPAT_H

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>	/* __le16/32/64, __u8... (the uapi ones) */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define U8_MAX		((u8)~0U)
#define U32_MAX		((u32)~0U)

#define __force

#define cpu_to_le16(x)	htole16(x)
#define cpu_to_le32(x)	htole32(x)
#define cpu_to_le64(x)	htole64(x)
#define le16_to_cpu(x)	le16toh(x)
#define le32_to_cpu(x)	le32toh(x)
#define le64_to_cpu(x)	le64toh(x)

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define cmpxchg(p, o, n)	__sync_val_compare_and_swap((p), (o), (n))

#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			   _a > _b ? _a : _b; })

static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}

/* Allocation: the GFP flags mean nothing here. */
#define GFP_KERNEL		0
#define kvcalloc(n, size, gfp)		calloc((n), (size))
#define kvmalloc_array(n, size, gfp)	calloc((n), (size))
#define kvzalloc(size, gfp)		calloc(1, (size))
#define kvfree(p)			free(p)
#define struct_size(p, member, n) \
	(sizeof(*(p)) + (size_t)(n) * sizeof(*(p)->member))

typedef pthread_mutex_t spinlock_t;
#define spin_lock_init(l)	pthread_mutex_init((l), NULL)
#define spin_lock_bh(l)		pthread_mutex_lock(l)
#define spin_unlock_bh(l)	pthread_mutex_unlock(l)
#define spin_lock_irqsave(l, f)	((f) = 0, pthread_mutex_lock(l))
#define spin_unlock_irqrestore(l, f) ((void)(f), pthread_mutex_unlock(l))

#endif /* _DRACK_KCOMPAT_H */
