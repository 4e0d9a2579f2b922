// SPDX-License-Identifier: GPL-2.0-only
/* drack-fmd logging: stderr in the foreground, syslog as a daemon. */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>
#include "fmd.h"

enum fmd_level fmd_log_level = FMD_INFO;
static bool fmd_use_syslog;

void fmd_log_syslog(void)
{
	openlog("drack-fmd", LOG_PID, LOG_DAEMON);
	fmd_use_syslog = true;
}

void fmd_log(enum fmd_level level, const char *fmt, ...)
{
	static const int prio[] = {
		[FMD_ERR] = LOG_ERR, [FMD_WARN] = LOG_WARNING,
		[FMD_INFO] = LOG_INFO, [FMD_DEBUG] = LOG_DEBUG,
	};
	va_list ap;

	if (level > fmd_log_level)
		return;
	va_start(ap, fmt);
	if (fmd_use_syslog) {
		vsyslog(prio[level], fmt, ap);
	} else {
		fputs("drack-fmd: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

uint64_t fmd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
