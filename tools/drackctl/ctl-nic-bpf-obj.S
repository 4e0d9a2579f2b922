/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The spreading programs of "drackctl nic policy", compiled by clang
 * (bpf/nic_policy.bpf.o), carried inside drackctl: ctl-nic-bpf.c opens
 * them with bpf_object__open_mem(). The path is relative to tools/, where
 * the Makefile assembles this file.
 */
	.section .rodata
	.balign 8
	.globl drack_nic_policy_obj
	.type drack_nic_policy_obj, @object
drack_nic_policy_obj:
	.incbin "bpf/nic_policy.bpf.o"
	.globl drack_nic_policy_obj_end
drack_nic_policy_obj_end:
	.size drack_nic_policy_obj, drack_nic_policy_obj_end - drack_nic_policy_obj

	.section .note.GNU-stack, "", @progbits
