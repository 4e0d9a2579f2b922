// SPDX-License-Identifier: GPL-2.0-only
/*
 * redis-load: a skewed Redis load generator for the evaluation
 * (Documentation/evaluation.rst). CONNS threads, each with one connection
 * to every server, for SECS seconds: a key drawn from a Zipf (-z S) or
 * Gaussian (-g SIGMA) distribution over KEYS keys, GET or SET (RATIO:1),
 * sent to the server that owns it (servers own ranges of keys, server 0
 * the lowest), so under Zipf the hot keys all land on server 0: hot-key
 * incast. Prints one "key=value" line:
 * requests, errors, throughput (req/s), p50/p99/avg latency (us).
 *
 *   redis-load -s HOST:PORT[,HOST:PORT...] [-c CONNS] [-d SECS] [-k KEYS]
 *              [-z S | -g SIGMA] [-r RATIO] [-v BYTES] [--preload I]
 *
 * --preload I: SET every key of server I once,
 * to the first -s address only (run it next to the server), and exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <hiredis/hiredis.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SERVERS 8

static struct {
	char host[MAX_SERVERS][64];
	int port[MAX_SERVERS];
	int nservers, conns, keys, ratio, vlen, preload;
	double secs, zipf_s, sigma;
	double *cdf;
	char *value;
} o = { .conns = 4, .keys = 1000, .ratio = 10, .vlen = 1024, .preload = -1,
	.secs = 10, .zipf_s = 0.99 };

struct worker {
	pthread_t t;
	unsigned int seed;
	double *lat;	/* us, one per request */
	size_t n, cap;
	long errors;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double urand(unsigned int *seed)
{
	return (rand_r(seed) + 0.5) / ((double)RAND_MAX + 1);
}

static int pick_key(unsigned int *seed)
{
	if (o.sigma > 0) {	/* Box-Muller around the middle key */
		double u1 = urand(seed), u2 = urand(seed);
		double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
		long k = lround(o.keys / 2.0 + z * o.sigma * o.keys);

		return k < 0 ? 0 : k >= o.keys ? o.keys - 1 : (int)k;
	}
	double u = urand(seed);
	int lo = 0, hi = o.keys - 1;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (o.cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Server 0 owns the first keys/servers keys, and so on. */
static int owner(int k)
{
	return (int)((long)k * o.nservers / o.keys);
}

static redisContext *connect_to(int i)
{
	struct timeval tv = { 10, 0 };
	redisContext *c = redisConnectWithTimeout(o.host[i], o.port[i], tv);

	if (!c || c->err) {
		fprintf(stderr, "redis-load: %s:%d: %s\n", o.host[i], o.port[i],
			c ? c->errstr : "out of memory");
		exit(1);
	}
	redisSetTimeout(c, tv);
	return c;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	redisContext *c[MAX_SERVERS];
	double end;
	int i;

	for (i = 0; i < o.nservers; i++)
		c[i] = connect_to(i);
	end = now() + o.secs;
	for (;;) {
		int k = pick_key(&w->seed), s = owner(k);
		int get = (int)(rand_r(&w->seed) % (o.ratio + 1)) != 0;
		double t0 = now(), t1;
		redisReply *r;

		if (t0 >= end)
			break;
		if (get)
			r = redisCommand(c[s], "GET k%d", k);
		else
			r = redisCommand(c[s], "SET k%d %b", k, o.value, (size_t)o.vlen);
		t1 = now();
		if (!r || r->type == REDIS_REPLY_ERROR) {
			w->errors++;
			if (!r) {	/* the connection is gone: a new one */
				redisFree(c[s]);
				c[s] = connect_to(s);
			}
		} else {
			if (w->n == w->cap) {
				w->cap = w->cap ? 2 * w->cap : 4096;
				w->lat = realloc(w->lat, w->cap * sizeof(*w->lat));
				if (!w->lat)
					exit(1);
			}
			w->lat[w->n++] = (t1 - t0) * 1e6;
		}
		if (r)
			freeReplyObject(r);
	}
	for (i = 0; i < o.nservers; i++)
		redisFree(c[i]);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void parse_servers(char *arg)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(tok, ':');

		if (o.nservers == MAX_SERVERS || !colon || colon - tok >= 64) {
			fprintf(stderr, "redis-load: -s HOST:PORT[,...] (at most %d), not '%s'\n",
				MAX_SERVERS, tok);
			exit(2);
		}
		memcpy(o.host[o.nservers], tok, colon - tok);
		o.host[o.nservers][colon - tok] = 0;
		o.port[o.nservers++] = atoi(colon + 1);
	}
}

static int preload(void)
{
	redisContext *c = connect_to(0);
	int k, n = 0;

	for (k = 0; k < o.keys; k++) {
		if (owner(k) != o.preload)
			continue;
		redisAppendCommand(c, "SET k%d %b", k, o.value, (size_t)o.vlen);
		n++;
	}
	while (n--) {
		redisReply *r;

		if (redisGetReply(c, (void **)&r) != REDIS_OK || r->type == REDIS_REPLY_ERROR) {
			fprintf(stderr, "redis-load: preload failed\n");
			return 1;
		}
		freeReplyObject(r);
	}
	redisFree(c);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "preload", required_argument, NULL, 'P' }, { 0 } };
	struct worker *w;
	double *all, sum = 0, t0;
	size_t n = 0, i;
	long errors = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "s:c:d:k:z:g:r:v:", lo, NULL)) != -1) {
		switch (opt) {
		case 's': parse_servers(optarg); break;
		case 'c': o.conns = atoi(optarg); break;
		case 'd': o.secs = atof(optarg); break;
		case 'k': o.keys = atoi(optarg); break;
		case 'z': o.zipf_s = atof(optarg); o.sigma = 0; break;
		case 'g': o.sigma = atof(optarg); break;
		case 'r': o.ratio = atoi(optarg); break;
		case 'v': o.vlen = atoi(optarg); break;
		case 'P': o.preload = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: redis-load -s HOST:PORT[,...] [-c CONNS] [-d SECS] [-k KEYS]"
				" [-z S | -g SIGMA] [-r GET:SET RATIO] [-v BYTES] [--preload I]\n");
			return 2;
		}
	}
	if (!o.nservers || o.conns < 1 || o.keys < 1 || o.ratio < 0 || o.vlen < 1 ||
	    o.secs <= 0 || o.preload >= o.nservers) {
		fprintf(stderr, "redis-load: bad arguments (need -s; positive -c -d -k -v)\n");
		return 2;
	}
	o.value = malloc(o.vlen);
	o.cdf = malloc(o.keys * sizeof(*o.cdf));
	if (!o.value || !o.cdf)
		return 1;
	memset(o.value, 'x', o.vlen);
	for (i = 0; i < (size_t)o.keys; i++)
		sum = o.cdf[i] = sum + 1 / pow(i + 1, o.zipf_s);
	for (i = 0; i < (size_t)o.keys; i++)
		o.cdf[i] /= sum;
	if (o.preload >= 0)
		return preload();

	w = calloc(o.conns, sizeof(*w));
	if (!w)
		return 1;
	t0 = now();
	for (i = 0; i < (size_t)o.conns; i++) {
		w[i].seed = (unsigned int)(t0 * 1e6) ^ (unsigned int)(i * 2654435761u);
		if (pthread_create(&w[i].t, NULL, run, &w[i]))
			return 1;
	}
	for (i = 0; i < (size_t)o.conns; i++) {
		pthread_join(w[i].t, NULL);
		n += w[i].n;
		errors += w[i].errors;
	}
	t0 = now() - t0;
	all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		return 1;
	n = 0;
	sum = 0;
	for (i = 0; i < (size_t)o.conns; i++) {
		memcpy(all + n, w[i].lat, w[i].n * sizeof(*all));
		n += w[i].n;
	}
	for (i = 0; i < n; i++)
		sum += all[i];
	qsort(all, n, sizeof(*all), cmp);
	printf("requests=%zu errors=%ld secs=%.2f rps=%.1f p50_us=%.0f p99_us=%.0f avg_us=%.0f\n",
	       n, errors, t0, n / t0, n ? all[n / 2] : 0, n ? all[(size_t)(n * 0.99)] : 0,
	       n ? sum / n : 0);
	return n ? 0 : 1;
}
