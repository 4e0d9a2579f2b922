// SPDX-License-Identifier: GPL-2.0-only
/*
 * insn-prof.c: a QEMU TCG plugin that counts the guest instructions each
 * translation block executes, between two marker instructions the guest
 * runs: `outb %al, $0x99` from user space (see insn-mark.c). Counts do
 * not depend on how busy the host is, unlike time or perf's cpu-clock
 * samples in a TCG guest, so two data paths compare exactly.
 *
 *   qemu-system-x86_64 ... -plugin ./insn-prof.so,out=FILE
 *
 * Every second marker appends a window to FILE: "window N", then one
 * line per kernel block that ran, "VADDR INSNS EXECS", then a line
 * "user INSNS" for all user-space blocks together. Counts are added
 * without atomics, so two vCPUs may lose a few.
 *
 * Built against QEMU's plugin API version 1 (QEMU 7.2, Debian 12); the
 * few declarations it needs are below, as Debian ships no header.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb)(unsigned int vcpu, void *udata);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *udata);
enum { CB_NO_REGS = 0 };
enum { INLINE_ADD_U64 = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      int op, void *ptr,
					      uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    vcpu_udata_cb cb, int flags,
					    void *udata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb,
				    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

EXPORT int qemu_plugin_version = 1;

/* A block: where it starts, how many instructions, how often it ran. */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t execs;
};

#define KERNEL_BASE 0xffff800000000000ULL
#define TABLE_BITS 20 /* 1M slots: the kernel's hot blocks fit easily */
#define TABLE_SIZE (1u << TABLE_BITS)

static struct block *table;
static uint64_t user_insns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static unsigned int marks, windows;

static uint64_t hash(uint64_t v)
{
	return (v * 0x9e3779b97f4a7c15ULL) >> (64 - TABLE_BITS);
}

/* Find or make a block's slot; NULL when the table is full. */
static struct block *lookup(uint64_t vaddr, uint64_t insns)
{
	uint64_t i = hash(vaddr), n;
	struct block *b;

	for (n = 0; n < TABLE_SIZE; n++, i = (i + 1) & (TABLE_SIZE - 1)) {
		b = &table[i];
		/* A block retranslated with other bounds keeps its slot. */
		if (b->vaddr == vaddr && b->insns == insns)
			return b;
		if (!b->vaddr) {
			b->vaddr = vaddr;
			b->insns = insns;
			return b;
		}
	}
	return NULL;
}

static void reset(void)
{
	size_t i;

	for (i = 0; i < TABLE_SIZE; i++)
		table[i].execs = 0;
	user_insns = 0;
}

static void dump(void)
{
	size_t i;

	fprintf(out, "window %u\n", ++windows);
	for (i = 0; i < TABLE_SIZE; i++)
		if (table[i].execs)
			fprintf(out, "%llx %llu %llu\n",
				(unsigned long long)table[i].vaddr,
				(unsigned long long)table[i].insns,
				(unsigned long long)table[i].execs);
	fprintf(out, "user %llu\n", (unsigned long long)user_insns);
	fflush(out);
}

/* The marker ran: odd ones open a window, even ones close it. */
static void on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	pthread_mutex_lock(&lock);
	if (++marks % 2)
		reset();
	else
		dump();
	pthread_mutex_unlock(&lock);
}

static bool is_mark(struct qemu_plugin_insn *insn)
{
	const uint8_t *op = qemu_plugin_insn_data(insn);

	/* outb %al, $0x99, from user space only: the kernel never runs it. */
	return qemu_plugin_insn_size(insn) == 2 && op[0] == 0xe6 &&
	       op[1] == 0x99 && qemu_plugin_insn_vaddr(insn) < KERNEL_BASE;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct block *b;

	(void)id;
	if (vaddr < KERNEL_BASE) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb, INLINE_ADD_U64,
							 &user_insns, n);
		for (i = 0; i < n; i++) {
			struct qemu_plugin_insn *insn =
				qemu_plugin_tb_get_insn(tb, i);

			if (is_mark(insn))
				qemu_plugin_register_vcpu_insn_exec_cb(insn,
								       on_mark,
								       CB_NO_REGS,
								       NULL);
		}
		return;
	}
	pthread_mutex_lock(&lock);
	b = lookup(vaddr, n);
	pthread_mutex_unlock(&lock);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, INLINE_ADD_U64,
							 &b->execs, 1);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (marks % 2)
		fprintf(out, "# window %u never closed\n", windows + 1);
	fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info,
			       int argc, char **argv)
{
	const char *path = NULL;
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!path) {
		fprintf(stderr, "insn-prof: needs out=FILE\n");
		return -1;
	}
	out = fopen(path, "w");
	table = calloc(TABLE_SIZE, sizeof(*table));
	if (!out || !table) {
		fprintf(stderr, "insn-prof: cannot open %s\n", path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
