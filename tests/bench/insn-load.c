// SPDX-License-Identifier: GPL-2.0-only
/*
 * insn-load: the TCP load that tests/bench/insns.sh counts instructions
 * of, between two markers for QEMU's insn-prof plugin (insn-prof.c).
 *
 *   insn-load server PORT
 *   insn-load pingpong ADDR PORT COUNT SIZE  COUNT round trips of SIZE bytes
 *   insn-load stream ADDR PORT MBYTES        MBYTES sent in 64 KB writes
 *
 * The client marks the start after connecting and a warm-up, and the end
 * once the last reply (or the server's acknowledgement of the stream's
 * end) is in: the window holds exactly the load.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/socket.h>
#include <unistd.h>

#define MARK_PORT 0x99
#define CHUNK 65536

static char buf[CHUNK];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The instruction insn-prof.c looks for: outb %al, $0x99. */
static void mark(void)
{
	__asm__ volatile("outb %%al, $0x99" : : "a"(0));
}

static void read_all(int fd, char *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = read(fd, p, n);
		if (r <= 0)
			die("read");
		p += r;
		n -= r;
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = write(fd, p, n);
		if (r <= 0)
			die("write");
		p += r;
		n -= r;
	}
}

static int set_nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/*
 * Echo every message back (its size is the first read's); a client that
 * half-closes gets one byte once all it sent is read.
 */
static _Noreturn void serve(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int one = 1, l, c;
	ssize_t r;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 4))
		die("listen");
	printf("listening on %d\n", port);
	fflush(stdout);
	for (;;) {
		c = accept(l, NULL, NULL);
		if (c < 0)
			die("accept");
		set_nodelay(c);
		while ((r = read(c, buf, sizeof(buf))) > 0)
			if (buf[0] == 'p')
				write_all(c, buf, r);
		if (r == 0)
			write_all(c, "k", 1);
		close(c);
	}
}

static int dial(const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) || set_nodelay(fd))
		die("connect");
	return fd;
}

static void pingpong(int fd, long count, size_t size)
{
	long i;

	memset(buf, 'p', size);
	for (i = 0; i < count; i++) {
		write_all(fd, buf, size);
		read_all(fd, buf, size);
	}
}

int main(int argc, char **argv)
{
	long count, size, mbytes, i;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "server"))
		serve(atoi(argv[2]));
	if (ioperm(MARK_PORT, 1, 1))
		die("ioperm");
	if (argc == 6 && !strcmp(argv[1], "pingpong")) {
		count = atol(argv[4]);
		size = atol(argv[5]);
		if (count <= 0 || size <= 0 || size > CHUNK)
			goto usage;
		fd = dial(argv[2], atoi(argv[3]));
		pingpong(fd, 100, size);
		mark();
		pingpong(fd, count, size);
		mark();
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "stream")) {
		mbytes = atol(argv[4]);
		if (mbytes <= 0)
			goto usage;
		fd = dial(argv[2], atoi(argv[3]));
		memset(buf, 's', sizeof(buf));
		for (i = 0; i < 16; i++)
			write_all(fd, buf, sizeof(buf));
		mark();
		for (i = 0; i < mbytes * 16; i++)
			write_all(fd, buf, sizeof(buf));
		shutdown(fd, SHUT_WR);
		read_all(fd, buf, 1);
		mark();
		return 0;
	}
usage:
	fprintf(stderr, "usage: insn-load server PORT | pingpong ADDR PORT COUNT SIZE | stream ADDR PORT MBYTES\n");
	return 2;
}
