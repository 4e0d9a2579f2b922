// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp-rr: TCP transaction latency (request/response ping-pong) for the
 * evaluation (Documentation/evaluation.rst). One connection, TCP_NODELAY,
 * a BYTES request answered by a BYTES response, COUNT times after a
 * warm-up of COUNT/10; prints "key=value": transactions, p50/p99/avg (us).
 *
 *   tcp-rr -l PORT                        serve (forever, one client at a time)
 *   tcp-rr -c HOST -p PORT [-n COUNT] [-m BYTES]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int full(int fd, char *buf, size_t len, int wr)
{
	while (len) {
		ssize_t n = wr ? write(fd, buf, len) : read(fd, buf, len);

		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int serve(int port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	int one = 1, ls = socket(AF_INET6, SOCK_STREAM, 0);
	char *buf = malloc(1 << 20);

	if (ls < 0 || !buf)
		return 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 8)) {
		perror("tcp-rr: bind/listen");
		return 1;
	}
	for (;;) {
		int fd = accept(ls, NULL, NULL);
		unsigned int m;

		if (fd < 0)
			continue;
		nodelay(fd);
		/* The client says the size first. */
		if (!full(fd, (char *)&m, sizeof(m), 0) && m <= 1 << 20)
			while (!full(fd, buf, m, 0) && !full(fd, buf, m, 1))
				;
		close(fd);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *host = NULL, *port = "5400";
	unsigned int m = 4096;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int n = 2000, opt, fd, i, warm;
	double *lat, sum = 0;
	char *buf;

	while ((opt = getopt(argc, argv, "l:c:p:n:m:")) != -1) {
		switch (opt) {
		case 'l': return serve(atoi(optarg));
		case 'c': host = optarg; break;
		case 'p': port = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'm': m = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: tcp-rr -l PORT | -c HOST [-p PORT] [-n COUNT] [-m BYTES]\n");
			return 2;
		}
	}
	if (!host || n < 1 || m < 1 || m > 1 << 20) {
		fprintf(stderr, "tcp-rr: need -c HOST, -n >= 1, 1 <= -m <= 1048576\n");
		return 2;
	}
	if (getaddrinfo(host, port, &hints, &ai)) {
		fprintf(stderr, "tcp-rr: cannot resolve %s\n", host);
		return 2;
	}
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		perror("tcp-rr: connect");
		return 1;
	}
	nodelay(fd);
	buf = calloc(1, m);
	lat = calloc(n, sizeof(*lat));
	if (!buf || !lat || full(fd, (char *)&m, sizeof(m), 1))
		return 1;
	warm = n / 10;
	for (i = -warm; i < n; i++) {
		double t0 = now();

		if (full(fd, buf, m, 1) || full(fd, buf, m, 0)) {
			fprintf(stderr, "tcp-rr: connection lost after %d transactions\n", i + warm);
			return 1;
		}
		if (i >= 0)
			sum += lat[i] = now() - t0;
	}
	qsort(lat, n, sizeof(*lat), cmp);
	printf("transactions=%d bytes=%u p50_us=%.1f p99_us=%.1f avg_us=%.1f\n",
	       n, m, lat[n / 2], lat[(int)(n * 0.99)], sum / n);
	return 0;
}
