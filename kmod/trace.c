// SPDX-License-Identifier: GPL-2.0-only
/* The tracepoints of trace.h, instantiated once for the whole module. */
#define CREATE_TRACE_POINTS
#include "trace.h"
